// The secrets a server entry holds, by the rule of trust/secret-names.ts: values of its `${VAR}`s
// whose names say so, env values under secret names, header values, its bearer token and OAuth
// credentials, and the credentials inside any URL it names. A folder given in its args or env, a
// URL without credentials, reach the model as they are. `!command` values are decided when they
// run (transport/open-connection.ts), by the same rule.
import { homedir } from "node:os";
import { isSecretHeader, isSecretValue, type PathContext, urlCredentials } from "../trust/secret-names.ts";
import type { ConfigSource, ServerEntry } from "../types.ts";
import { isCommandValue } from "./command-values.ts";
import type { ExpandedVariable } from "./interpolate.ts";

/** What an entry's secrets are read from, once its values are expanded. */
export interface EntryValues {
	readonly variables: readonly ExpandedVariable[];
	readonly env?: Readonly<Record<string, string>>;
	readonly headers?: Readonly<Record<string, string>>;
	/** Credentials by their field: a bearer token, OAuth client secrets, a private key. */
	readonly credentials?: readonly (string | undefined)[];
	/** Every other expanded string (command, args, cwd, url): only the credentials of the URLs in them. */
	readonly others: readonly (string | undefined)[];
}

/** Where a value's paths are read: a project's config is not trusted to name a path that is looked up. */
export function pathContext(scope: ConfigSource["scope"], home: string | undefined, cwd: string): PathContext {
	return { home, cwd, mayStat: scope === "user" };
}

export function entrySecrets(values: EntryValues, where: PathContext): string[] {
	const secrets: string[] = [];
	for (const { name, value } of values.variables) if (isSecretValue(name, value, where)) secrets.push(value);
	const fixed = (map: Readonly<Record<string, string>> | undefined) =>
		Object.entries(map ?? {}).filter(([, value]) => !isCommandValue(value));
	for (const [name, value] of fixed(values.env)) if (isSecretValue(name, value, where)) secrets.push(value);
	for (const [name, value] of fixed(values.headers)) if (isSecretHeader(name, value, where)) secrets.push(value);
	for (const credential of values.credentials ?? []) if (credential) secrets.push(credential);
	const texts = [...values.others, ...Object.values(values.env ?? {}), ...Object.values(values.headers ?? {})];
	for (const text of texts) if (text) secrets.push(...urlCredentials(text));
	return secrets;
}

/**
 * The secrets among an entry's env (stdio) or headers (HTTP) as resolved when it connects: a
 * `!command`'s output, the sign-in's Authorization. Handed to the redactor before anything else.
 */
export function resolvedSecrets(entry: ServerEntry, values: Readonly<Record<string, string>>): string[] {
	const cwd = entry.transport === "stdio" ? entry.cwd : undefined;
	const where = pathContext(entry.source.scope, homedir(), cwd ?? process.cwd());
	const secret = entry.transport === "stdio" ? isSecretValue : isSecretHeader;
	return Object.entries(values)
		.filter(([name, value]) => secret(name, value, where))
		.map(([, value]) => value);
}
