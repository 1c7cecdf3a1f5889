// Variable expansion in config values: ${VAR}, ${VAR:-default}, ${env:VAR}, $env:VAR, ${workspaceFolder}.
// Strict on purpose: a variable that is not set and has no default is an error naming the
// variable (never its value), instead of silently launching a server with an empty token.

export interface InterpolationContext {
	readonly env: Readonly<Record<string, string | undefined>>;
	readonly cwd: string;
}

export type Interpolated = { ok: true; value: string } | { ok: false; error: string };

const PATTERN = /\$\{([^}]*)\}|\$env:([A-Za-z_][A-Za-z0-9_]*)/g;

export function interpolate(input: string, ctx: InterpolationContext): Interpolated {
	const missing: string[] = [];
	const value = input.replace(PATTERN, (match, braced: string | undefined, psStyle: string | undefined) => {
		if (psStyle !== undefined) return lookup(psStyle, undefined, ctx, missing, match);
		const body = braced ?? "";
		if (body === "workspaceFolder" || body === "workspaceRoot") return ctx.cwd;
		if (body.startsWith("input:")) {
			missing.push(`${match} (a VS Code input prompt, which Pi cannot show; use an environment variable)`);
			return match;
		}
		const name = body.startsWith("env:") ? body.slice(4) : body;
		const sep = name.indexOf(":-");
		if (sep >= 0) return lookup(name.slice(0, sep), name.slice(sep + 2), ctx, missing, match);
		return lookup(name, undefined, ctx, missing, match);
	});
	if (missing.length > 0) {
		return { ok: false, error: `${missing.join(", ")} ${missing.length === 1 ? "is" : "are"} not set` };
	}
	return { ok: true, value };
}

function lookup(
	name: string,
	fallback: string | undefined,
	ctx: InterpolationContext,
	missing: string[],
	match: string,
): string {
	const value = ctx.env[name];
	if (value !== undefined && value !== "") return value;
	if (fallback !== undefined) return fallback;
	missing.push(match);
	return match;
}
