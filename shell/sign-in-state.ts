// An OAuth server's sign-in as `doctor` and `get` report it: stored and usable (until when), or not,
// and what signs in. Read from the files only: nothing is refreshed or sent.
import type { McpRuntime } from "../mcp-runtime.ts";
import { SignInStore, stillValid } from "../oauth/store.ts";
import { piSignInToken } from "../oauth-handler.ts";
import type { HttpServerEntry } from "../types.ts";

/** One line of a report: `problem` and `warning` make `doctor`'s exit code 1, `ok` and `note` do not. */
export interface Finding {
	readonly level: "ok" | "problem" | "warning" | "note";
	readonly text: string;
}

/** Whether an OAuth server's sign-in is stored and usable: `<name>: signed in, access valid until ...`. */
export function signInState(runtime: McpRuntime, entry: HttpServerEntry): Finding {
	const name = entry.name;
	const tokens = new SignInStore(runtime.agentDir, name, entry.url).read().tokens;
	// The server's own line says it refused the connection (the problem); this says what fixes it.
	if (runtime.lifecycle.state(name) === "needs-auth")
		return { level: "note", text: `${name}: not signed in: run pi-mcp-proxy login ${name}` };
	if (tokens && (stillValid(tokens, Date.now(), 0) || tokens.refresh_token)) {
		const until = tokens.expires_at ? `, access valid until ${new Date(tokens.expires_at).toISOString()}` : "";
		const refreshed = tokens.refresh_token ? " (refreshed automatically)" : "";
		return { level: "ok", text: `${name}: signed in${until}${refreshed}` };
	}
	if (piSignInToken(runtime.agentDir, name, entry.url))
		return { level: "ok", text: `${name}: signed in (Pi's sign-in)` };
	// Connected without tokens: the server asked for none.
	return runtime.lifecycle.state(name) === "connected"
		? { level: "note", text: `${name}: not signed in; the server asked for no sign-in` }
		: { level: "note", text: `${name}: not signed in (pi-mcp-proxy login ${name} signs in)` };
}
