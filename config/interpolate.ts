// Variable expansion in config values: ${VAR}, ${VAR:-default} (defaults may nest: ${A:-${B}}),
// ${env:VAR}, $env:VAR, ${workspaceFolder}. A small parser, not a regex, so nesting and malformed
// forms are handled exactly. Strict on purpose: a variable that is not set and has no default is
// an error naming the variable (never its value), and so is a malformed `${...}`; a server is
// never started with an empty token or a half-expanded string.
import { join } from "node:path";

export interface InterpolationContext {
	readonly env: Readonly<Record<string, string | undefined>>;
	readonly cwd: string;
	/** The home directory a leading `~/` names (Pi 1.5 reads `command`, `args` and `cwd` so). */
	readonly home?: string;
}

/** A leading `~` or `~/` names the home directory, as a shell (and Pi 1.5's mcp.json) reads it. */
export function expandHome(path: string, home: string): string {
	return path === "~" || path.startsWith("~/") ? join(home, path.slice(1)) : path;
}

/** A variable an expansion read, and its value: the caller decides what is secret (trust/secret-names.ts). */
export interface ExpandedVariable {
	readonly name: string;
	readonly value: string;
}

/** On success, `values` holds the variables taken from the environment. */
export type Interpolated = { ok: true; value: string; values: ExpandedVariable[] } | { ok: false; error: string };

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const PS_NAME = /^[A-Za-z_][A-Za-z0-9_]*/;

class Malformed extends Error {}

export function interpolate(input: string, ctx: InterpolationContext): Interpolated {
	const missing: string[] = [];
	const values: ExpandedVariable[] = [];
	try {
		const { value, end } = expandUntil(input, 0, false, ctx, missing, values);
		if (end !== input.length) throw new Malformed(`unexpected "}" at position ${end + 1}`);
		if (missing.length > 0)
			return { ok: false, error: `${missing.join(", ")} ${missing.length === 1 ? "is" : "are"} not set` };
		return { ok: true, value, values };
	} catch (error) {
		if (!(error instanceof Malformed)) throw error;
		// The text itself is not repeated: it may hold a literal secret.
		return { ok: false, error: `malformed variable: ${error.message}. Write \${NAME} or \${NAME:-default}.` };
	}
}

/**
 * Expands from `start` to the end of the text, or (inside a default) to the `}` that closes it.
 * Returns the expansion and the index where it stopped.
 */
function expandUntil(
	text: string,
	start: number,
	inDefault: boolean,
	ctx: InterpolationContext,
	missing: string[],
	values: ExpandedVariable[],
): { value: string; end: number } {
	let out = "";
	let i = start;
	while (i < text.length) {
		const ch = text[i];
		if (ch === "}" && inDefault) return { value: out, end: i };
		if (ch === "$" && text[i + 1] === "{") {
			const { value, end } = expandBraced(text, i + 2, ctx, missing, values);
			out += value;
			i = end + 1;
			continue;
		}
		if (ch === "$" && text.startsWith("env:", i + 1)) {
			const name = PS_NAME.exec(text.slice(i + 5))?.[0];
			if (name) {
				out += lookup(name, undefined, `$env:${name}`, ctx, missing, values);
				i += 5 + name.length;
				continue;
			}
		}
		out += ch;
		i++;
	}
	if (inDefault) throw new Malformed(`"\${" at position ${start - 1} is never closed`);
	return { value: out, end: i };
}

/** The body of one `${...}` starting at `start` (after the brace); returns its value and the index of its `}`. */
function expandBraced(
	text: string,
	start: number,
	ctx: InterpolationContext,
	missing: string[],
	values: ExpandedVariable[],
): { value: string; end: number } {
	// The name part ends at "}" or ":-"; anything else in it is malformed.
	let i = start;
	while (i < text.length && text[i] !== "}" && !text.startsWith(":-", i)) i++;
	if (i >= text.length) throw new Malformed(`"\${" at position ${start - 1} is never closed`);
	const head = text.slice(start, i);
	const shown = (tail: string) => `\${${head}${tail}}`;
	if (text[i] === "}") {
		if (head === "workspaceFolder" || head === "workspaceRoot") return { value: ctx.cwd, end: i };
		if (head.startsWith("input:")) {
			missing.push(`${shown("")} (a VS Code input prompt, which Pi cannot show; use an environment variable)`);
			return { value: "", end: i };
		}
		return { value: lookup(variableName(head), undefined, shown(""), ctx, missing, values), end: i };
	}
	const name = variableName(head);
	// The default is expanded only when needed, but always parsed, so a malformed one is caught.
	const innerMissing: string[] = [];
	const innerValues: ExpandedVariable[] = [];
	const fallback = expandUntil(text, i + 2, true, ctx, innerMissing, innerValues);
	const set = ctx.env[name];
	if (set !== undefined && set !== "") {
		values.push({ name, value: set });
		return { value: set, end: fallback.end };
	}
	missing.push(...innerMissing);
	values.push(...innerValues);
	return { value: fallback.value, end: fallback.end };
}

function variableName(head: string): string {
	const name = head.startsWith("env:") ? head.slice(4) : head;
	if (name === "") throw new Malformed("empty variable name");
	if (!NAME.test(name))
		throw new Malformed(`"${name}" is not a variable name (letters, digits and _, not starting with a digit)`);
	return name;
}

function lookup(
	name: string,
	fallback: string | undefined,
	shown: string,
	ctx: InterpolationContext,
	missing: string[],
	values: ExpandedVariable[],
): string {
	const value = ctx.env[name];
	if (value !== undefined && value !== "") {
		values.push({ name, value });
		return value;
	}
	if (fallback !== undefined) return fallback;
	missing.push(shown);
	return "";
}
