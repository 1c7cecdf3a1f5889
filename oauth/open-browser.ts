// Opening a web page in the user's browser (OAuth sign-in, a server's URL elicitation), or a
// page of ours from a file (an MCP App's launch file). Only http(s) addresses and our own files
// are opened: a server's `file:`, `smb:` or custom scheme would hand a path or a share to whatever
// the system registered for it. No shell parses the address on any platform.
import { spawn } from "node:child_process";
import { isAbsolute } from "node:path";
import { pathToFileURL } from "node:url";

/** Whether `url` is an http(s) address (the only kind handed to a browser). */
export function isWebAddress(url: string): boolean {
	try {
		const { protocol } = new URL(url);
		return protocol === "http:" || protocol === "https:";
	} catch {
		return false;
	}
}

/** The system browser (xdg-open, open, the URL handler), or none with BROWSER=none; failing to open is fine: the URL is shown. */
export function openSystemBrowser(url: string): void {
	if (isWebAddress(url)) launchBrowser(url);
}

/**
 * Opens a local HTML file the package wrote (an absolute path) in the browser, by its `file:`
 * URL: the command line shows that path, never what the file holds.
 */
export function openFileInBrowser(path: string): void {
	if (isAbsolute(path)) launchBrowser(pathToFileURL(path).href);
}

function launchBrowser(url: string): void {
	if (process.env.BROWSER === "none") return;
	const [command, args] = process.env.BROWSER
		? [process.env.BROWSER, [url]]
		: process.platform === "darwin"
			? ["open", [url]]
			: process.platform === "win32"
				? // Not `cmd /c start`: cmd would cut the URL at "&" and run what follows.
					["rundll32.exe", ["url.dll,FileProtocolHandler", url]]
				: ["xdg-open", [url]];
	try {
		const child = spawn(command, args, { stdio: "ignore", detached: true });
		child.on("error", () => undefined); // no browser here: the URL was shown
		child.unref();
	} catch {
		// no browser here: the URL was shown
	}
}
