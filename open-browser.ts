// Opening a web page in the user's browser (OAuth sign-in, a server's URL elicitation).
import { spawn } from "node:child_process";

/** The system browser (xdg-open, open, start), or none with BROWSER=none; failing to open is fine: the URL is shown. */
export function openSystemBrowser(url: string): void {
	if (process.env.BROWSER === "none") return;
	const [command, args] =
		process.env.BROWSER ? [process.env.BROWSER, [url]] : process.platform === "darwin" ? ["open", [url]] : process.platform === "win32" ? ["cmd", ["/c", "start", "", url]] : ["xdg-open", [url]];
	try {
		const child = spawn(command, args, { stdio: "ignore", detached: true });
		child.on("error", () => undefined);
		child.unref();
	} catch {
		// no browser here: the URL was shown
	}
}
