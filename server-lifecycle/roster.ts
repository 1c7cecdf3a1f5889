// Which servers the config names and which of them may run now: the usable ones, those that need
// configuration, those the gate holds (a project server awaiting the user's yes, or denied), and the
// words for a server that is unknown or may not run. Holds the session's current config.

import { formatProblem } from "../config.ts";
import { unknownServerMessage } from "../errors.ts";
import { approvalMessage, type GateState } from "../trust/project-approval.ts";
import type { McpConfig, ServerEntry } from "../types.ts";

export class ServerRoster {
	/**
	 * @param config replaced (never edited) when the session takes a new config.
	 * @param gate whether a server may run: project servers wait for the user's yes; none means all may.
	 */
	constructor(
		public config: McpConfig,
		private readonly gate?: (entry: ServerEntry) => GateState,
	) {}

	/** Every server the config names: the usable ones, then those that need configuration. */
	serverNames(): string[] {
		return [
			...this.config.servers.keys(),
			...[...this.config.unconfigured.keys()].filter((n) => !this.config.servers.has(n)),
		];
	}

	/** Whether the config names this server at all (usable or not). */
	knows(name: string): boolean {
		return this.config.servers.has(name) || this.config.unconfigured.has(name);
	}

	/** A usable server's entry; an unknown one throws `unknownServer`'s words. */
	entry(name: string): ServerEntry {
		const entry = this.config.servers.get(name);
		if (!entry) throw new Error(this.unknownServer(name));
		return entry;
	}

	/** The config's reason a named server cannot be used as written, when it has one. */
	unconfigured(name: string) {
		return this.config.servers.has(name) ? undefined : this.config.unconfigured.get(name);
	}

	/** What the gate says of a server (one the config does not name is not the gate's to hold). */
	gateOf(name: string): GateState {
		const entry = this.config.servers.get(name);
		return entry ? this.gateOfEntry(entry) : "allowed";
	}

	allowed(entry: ServerEntry): boolean {
		return this.gateOfEntry(entry) === "allowed";
	}

	/** Why a server may not run now (needs configuration, awaiting approval, denied), or undefined when it may. */
	blocked(name: string): string | undefined {
		const unconfigured = this.unconfigured(name);
		if (unconfigured) {
			const { reason, source } = unconfigured;
			// A file that does not parse names itself in the reason already.
			const where = reason.includes(source.path) ? "" : ` (in ${source.path})`;
			return `Server "${name}" needs configuration: ${reason}${where}`;
		}
		const gate = this.gateOf(name);
		return gate === "allowed" ? undefined : approvalMessage(name, gate);
	}

	/** "Unknown server" with the configured names and, when the config is broken, what is wrong with it. */
	unknownServer(name: string): string {
		const off = this.config.disabled?.get(name);
		if (off)
			return `Server "${name}" is turned off ("enabled": false in ${off}). Ask the user if it should be turned on; servers that can be used: ${this.serverNames().join(", ") || "none"}.`;
		const errors = this.config.problems.filter((p) => p.severity === "error");
		const hint =
			errors.length > 0
				? ` The MCP config has problems, which may be why: ${errors.slice(0, 3).map(formatProblem).join(" | ")}`
				: "";
		return unknownServerMessage(name, this.serverNames()) + hint;
	}

	private gateOfEntry(entry: ServerEntry): GateState {
		return this.gate?.(entry) ?? "allowed";
	}
}
