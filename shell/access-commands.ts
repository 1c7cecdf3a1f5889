// Who may reach a server, from a shell: `login`/`logout` (OAuth: the address printed, the browser's
// redirect awaited or pasted) and `approve`/`deny` for a project's servers (a shell shows no dialog:
// the launches are printed with a code, and only that code approves exactly what was printed).
import { createInterface } from "node:readline";
import { describeError } from "../errors.ts";
import type { McpRuntime } from "../mcp-runtime.ts";
import { approveCommand } from "../trust/approve-flow.ts";
import { isShownCode } from "../trust/shown-launches.ts";
import { print, printError } from "./output.ts";

/** `login`: the URL on stdout, then the callback (or a pasted address on a terminal); `logout`: the tokens go. */
export async function sign(
	runtime: McpRuntime,
	command: "login" | "logout",
	server: string | undefined,
): Promise<number> {
	if (!server) {
		printError(`${command} needs a server name. Servers: ${runtime.lifecycle.serverNames().join(", ") || "none"}\n`);
		return 2;
	}
	try {
		if (command === "logout") {
			print((await runtime.signOut(server)) ? `Signed out of "${server}".\n` : `"${server}" was not signed in.\n`);
			return 0;
		}
		await runtime.signIn(server, {
			show: (url, shortUrl) =>
				print(
					`Open this address to sign in to "${server}":\n${url}\n(on this machine, ${shortUrl} leads there too)\n${process.stdin.isTTY ? "Or paste the address the browser ended on, then Enter.\n" : ""}`,
				),
			askPaste: process.stdin.isTTY ? (signal) => readLine(signal) : undefined,
		});
		print(`Signed in to "${server}".\n`);
		return 0;
	} catch (error) {
		printError(`${runtime.redactor.scrub(describeError(error))}\n`);
		return 1;
	}
}

/** One line from the terminal, or undefined when `signal` ends the wait. */
async function readLine(signal: AbortSignal): Promise<string | undefined> {
	const rl = createInterface({ input: process.stdin });
	try {
		return await new Promise<string | undefined>((resolve) => {
			rl.once("line", resolve);
			signal.addEventListener("abort", () => resolve(undefined), { once: true });
		});
	} finally {
		rl.close();
	}
}

/** `approve [server] [code]` and `deny [server]`: exit 0 when decided (or nothing to decide), 1 when nothing was approved. */
export async function decide(
	runtime: McpRuntime,
	command: "approve" | "deny",
	words: readonly string[],
): Promise<number> {
	const unknown = words.find((w) => !(command === "approve" && isShownCode(w)) && !runtime.lifecycle.knows(w));
	if (unknown) {
		printError(`${runtime.lifecycle.unknownServer(unknown)}\n`);
		return 2;
	}
	if (command === "approve") {
		// A shell cannot show a dialog: the launches are printed with a code, and only that code approves them.
		const answer = await approveCommand(runtime, words);
		(answer.level === "error" ? printError : print)(`${answer.text}\n`);
		return answer.approved || answer.level === "info" ? 0 : 1;
	}
	const server = words[0];
	const decided = await runtime.decide(server ? [server] : [], "denied");
	if (decided.length === 0) {
		print(
			server ? `"${server}" is from your own config: it needs no approval.\n` : "No project server needs a decision.\n",
		);
		return 0;
	}
	print(`Denied for ${runtime.approvals.project}:\n`);
	for (const entry of decided) print(`  ${runtime.describeLaunch(entry)}\n`);
	return 0;
}
