// A server's config identity: the fields that decide what it exposes, hashed over a canonical
// JSON. The metadata cache keys entries by it, the broker keys shared servers by it, and the
// project approvals hash a launch the same canonical way.
import { createHash } from "node:crypto";
import type { ServerEntry } from "../types.ts";

/** The fields that change what a server exposes; lifecycle, idleTimeout and debug do not. */
export function configHash(entry: ServerEntry): string {
	// A server offered no roots may list other tools (server-everything's get-roots-list); only
	// `false` is hashed, so the entries of every other server keep their hash.
	const roots = entry.roots === false ? { roots: false } : {};
	const launch =
		entry.transport === "stdio"
			? {
					command: entry.command,
					args: entry.args,
					env: entry.env,
					cwd: entry.cwd,
					exposeResources: entry.exposeResources,
				}
			: {
					url: entry.url,
					headers: entry.headers,
					auth: entry.auth,
					bearerToken: entry.bearerToken,
					bearerTokenEnv: entry.bearerTokenEnv,
					exposeResources: entry.exposeResources,
				};
	return createHash("sha256")
		.update(stableStringify({ ...launch, ...roots }))
		.digest("hex");
}

/** JSON with object keys sorted at every level, so equal configs hash equally. */
export function stableStringify(value: unknown): string {
	if (Array.isArray(value)) return `[${value.map(stableStringify).join(",")}]`;
	if (value && typeof value === "object") {
		const entries = Object.entries(value as Record<string, unknown>)
			.filter(([, v]) => v !== undefined)
			.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
		return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableStringify(v)}`).join(",")}}`;
	}
	return JSON.stringify(value) ?? "null";
}
