// Pi 1.5's `!command` values: an env or header value written as `!<command>` is the output of
// that command, run when the server starts (`"Authorization": "!echo Bearer $(gh auth token)"`).
// Run only when a connection opens, so never for a project server the user has not approved;
// the caller hands the outputs that are secrets (config/entry-secrets.ts resolvedSecrets) to the
// redactor before anything else sees them.
import { execFile } from "node:child_process";

const TIMEOUT_MS = 10_000;

export function isCommandValue(value: string): boolean {
	return value.startsWith("!") && value.trim().length > 1;
}

/** The values with every `!command` replaced by its trimmed output. */
export async function resolveCommandValues(
	values: Readonly<Record<string, string>>,
	where: string,
	env: Readonly<Record<string, string | undefined>>,
): Promise<Record<string, string>> {
	const out: Record<string, string> = {};
	for (const [key, value] of Object.entries(values)) {
		if (!isCommandValue(value)) {
			out[key] = value;
			continue;
		}
		const output = await run(value.slice(1), env).catch((error: Error) => {
			throw new Error(`${where}.${key}: its command failed: ${error.message}`, { cause: error });
		});
		out[key] = output;
	}
	return out;
}

function run(command: string, env: Readonly<Record<string, string | undefined>>): Promise<string> {
	const [shell, flag] = process.platform === "win32" ? [process.env.ComSpec ?? "cmd.exe", "/c"] : ["/bin/sh", "-c"];
	return new Promise((resolve, reject) => {
		execFile(
			shell,
			[flag, command],
			{ env: { ...env }, timeout: TIMEOUT_MS, windowsHide: true, maxBuffer: 1024 * 1024 },
			(error, stdout, stderr) => {
				if (error) {
					// The exit status and the end of stderr say why; the command's output is never shown.
					const why = error.killed
						? `no result within ${TIMEOUT_MS / 1000} s`
						: `exit ${error.code ?? "?"}${stderr.trim() ? `: ${stderr.trim().split("\n").slice(-2).join(" ")}` : ""}`;
					reject(new Error(why));
					return;
				}
				resolve(stdout.trim());
			},
		);
	});
}
