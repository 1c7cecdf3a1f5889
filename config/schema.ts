// The shapes of the config files, as TypeBox schemas, and how a mismatch is worded: each failing
// field as `field: must be <what>, got <value>` (credential fields by type only), and every key
// the schema does not know named with the closest one it does. Loading and merging: config.ts.
import { type Static, type TSchema, Type } from "@sinclair/typebox";
import { closestNames } from "../catalog/closest-name.ts";
import { checks, failingFields } from "./json-check.ts";

const StringMap = Type.Record(Type.String(), Type.String());
/** The longest delay a Node timer takes (2^31 - 1 ms, about 24.8 days): longer ones fire at once. */
export const MAX_TIMER_MS = 2_147_483_647;
const Milliseconds = Type.Number({ exclusiveMinimum: 0, maximum: MAX_TIMER_MS });
const Minutes = Type.Number({ minimum: 0, maximum: Math.floor(MAX_TIMER_MS / 60_000) });

/** Pi 1.5's exposure values; `codemode` and `deferred` mean "through the mcp tool" here. */
const ExposureSchema = Type.Union([
	Type.Literal("codemode"),
	Type.Literal("codemode-deferred"),
	Type.Literal("deferred"),
	Type.Literal("direct"),
	Type.Literal("hidden"),
]);

/** 2.36's `approveTools`: ask before every tool (`true`), before the tools named (globs), or never (`false`, `[]`). */
const ApproveToolsSchema = Type.Union([Type.Boolean(), Type.Array(Type.String())]);

/** The shape of one server entry in a Pi config file (imports are mapped to it first). */
export const RawServerSchema = Type.Object({
	command: Type.Optional(Type.String({ minLength: 1 })),
	args: Type.Optional(Type.Array(Type.String())),
	env: Type.Optional(StringMap),
	cwd: Type.Optional(Type.String()),
	url: Type.Optional(Type.String({ minLength: 1 })),
	type: Type.Optional(
		Type.Union([Type.Literal("stdio"), Type.Literal("http"), Type.Literal("sse"), Type.Literal("streamable-http")]),
	),
	headers: Type.Optional(StringMap),
	lifecycle: Type.Optional(Type.Union([Type.Literal("lazy"), Type.Literal("eager"), Type.Literal("keep-alive")])),
	idleTimeout: Type.Optional(Minutes),
	timeout: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: MAX_TIMER_MS / 1000 })),
	debug: Type.Optional(Type.Boolean()),
	share: Type.Optional(Type.Boolean()),
	roots: Type.Optional(Type.Boolean()),
	exposeResources: Type.Optional(Type.Boolean()),
	directTools: Type.Optional(Type.Union([Type.Boolean(), Type.Array(Type.String())])),
	auth: Type.Optional(Type.Union([Type.Literal("oauth"), Type.Literal("bearer")])),
	bearerToken: Type.Optional(Type.String()),
	bearerTokenEnv: Type.Optional(Type.String({ minLength: 1 })),
	disabled: Type.Optional(Type.Boolean()),
	// Pi 1.5's own fields (its `pi mcp add` writes them): read as Pi 1.5 documents them.
	enabled: Type.Optional(Type.Boolean()),
	description: Type.Optional(Type.String()),
	exposure: Type.Optional(ExposureSchema),
	toolExposure: Type.Optional(Type.Record(Type.String(), ExposureSchema)),
	oauth: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
	// pi-mcp-adapter 2.36's filters and approvals (names or globs, matched as 2.36 does: catalog/tool-patterns.ts).
	includeTools: Type.Optional(Type.Array(Type.String())),
	excludeTools: Type.Optional(Type.Array(Type.String())),
	approveTools: Type.Optional(ApproveToolsSchema),
});
export type RawServer = Static<typeof RawServerSchema>;

/** An enterprise identity provider (SEP-990): the user's ID token is exchanged there for an ID-JAG. */
export const IdpSchema = Type.Object({
	issuer: Type.Optional(Type.String({ minLength: 1 })),
	tokenEndpoint: Type.Optional(Type.String({ minLength: 1 })),
	clientId: Type.Optional(Type.String({ minLength: 1 })),
	clientSecret: Type.Optional(Type.String()),
	idTokenFile: Type.Optional(Type.String({ minLength: 1 })),
	idTokenEnv: Type.Optional(Type.String({ minLength: 1 })),
});

/** A server's `oauth` (Pi 1.5's keys, client credentials, DPoP, workload identity, enterprise sign-in). */
export const OAuthSchema = Type.Object({
	clientId: Type.Optional(Type.String()),
	clientSecret: Type.Optional(Type.String()),
	scope: Type.Optional(Type.String()),
	callbackPort: Type.Optional(Type.Number({ minimum: 0, maximum: 65535 })),
	clientName: Type.Optional(Type.String()),
	clientRegistration: Type.Optional(Type.Union([Type.Literal("auto"), Type.Literal("dcr"), Type.Literal("cimd")])),
	clientMetadataUrl: Type.Optional(Type.String()),
	callbackUrl: Type.Optional(Type.String()),
	authServerMetadataUrl: Type.Optional(Type.String()),
	grantType: Type.Optional(
		Type.Union([
			Type.Literal("authorization_code"),
			Type.Literal("client_credentials"),
			Type.Literal("jwt_bearer"),
			Type.Literal("enterprise"),
		]),
	),
	privateKey: Type.Optional(Type.String()),
	algorithm: Type.Optional(Type.String()),
	dpop: Type.Optional(Type.Boolean()),
	assertionFile: Type.Optional(Type.String({ minLength: 1 })),
	assertionEnv: Type.Optional(Type.String({ minLength: 1 })),
	idp: Type.Optional(IdpSchema),
});
export type OAuthConfig = Static<typeof OAuthSchema>;

export const OutputGuardSchema = Type.Object({
	maxBytes: Type.Optional(Type.Number({ minimum: 1024 })),
	maxLines: Type.Optional(Type.Number({ minimum: 10 })),
});

export const SettingsSchema = Type.Object({
	toolPrefix: Type.Optional(Type.Union([Type.Literal("server"), Type.Literal("short"), Type.Literal("none")])),
	idleTimeout: Type.Optional(Minutes),
	requestTimeoutMs: Type.Optional(Milliseconds),
	directTools: Type.Optional(Type.Boolean()),
	maxTotalTimeoutMs: Type.Optional(Milliseconds),
	connectTimeoutMs: Type.Optional(Milliseconds),
	installTimeoutMs: Type.Optional(Milliseconds),
	maxMessageMB: Type.Optional(Type.Number({ minimum: 1 })),
	maxArgumentMB: Type.Optional(Type.Number({ exclusiveMinimum: 0 })),
	trustProjectServers: Type.Optional(Type.Boolean()),
	shareServers: Type.Optional(Type.Boolean()),
	prestart: Type.Optional(Type.Boolean()),
	warmUp: Type.Optional(Type.Boolean()),
	surface: Type.Optional(Type.Union([Type.Literal("codemode"), Type.Literal("mcp")])),
	roots: Type.Optional(Type.Array(Type.String())),
	outputGuard: Type.Optional(Type.Union([Type.Literal(false), OutputGuardSchema])),
	approveTools: Type.Optional(ApproveToolsSchema),
	apps: Type.Optional(Type.Boolean()),
});

export const FileSchema = Type.Object({
	mcpServers: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
	imports: Type.Optional(Type.Array(Type.String())),
	settings: Type.Optional(Type.Unknown()),
});

/**
 * Schema failures as `field: must be <what>, got <value>` lines, worded from the schema itself.
 */
export function schemaErrors(schema: TSchema, value: unknown): string {
	if (typeof value !== "object" || value === null || Array.isArray(value)) return "must be a JSON object";
	const fields = failingFields(schema, value);
	const properties = (schema as { properties?: Record<string, TSchema> }).properties ?? {};
	const lines = fields.slice(0, 5).map((field) => {
		const expected = properties[field] ? describeSchema(properties[field]) : "valid";
		const raw = (value as Record<string, unknown>)[field];
		// Fields that hold credentials are described by type only: no prefix of a token is shown.
		const got = SECRET_FIELDS.has(field) ? kindOf(raw) : (JSON.stringify(raw) ?? "nothing");
		return `${field || "(entry)"}: must be ${expected}, got ${got.length > 40 ? `${got.slice(0, 40)}...` : got}`;
	});
	return lines.join("; ") || "is not valid";
}

const SECRET_FIELDS = new Set([
	"env",
	"headers",
	"bearerToken",
	"oauth",
	"url",
	"args",
	"clientSecret",
	"privateKey",
	"idp",
]);

function kindOf(value: unknown): string {
	if (value === undefined) return "nothing";
	if (value === null) return "null";
	if (Array.isArray(value)) return "a list";
	return typeof value === "object" ? "an object" : `a ${typeof value}`;
}

/** "a list of strings", `one of "lazy", "eager"`, ... from a JSON Schema. */
function describeSchema(schema: unknown): string {
	const s = schema as {
		type?: string;
		const?: unknown;
		anyOf?: unknown[];
		items?: unknown;
		minimum?: number;
		exclusiveMinimum?: number;
		maximum?: number;
	};
	if (s.anyOf) {
		const consts = s.anyOf.map((v) => (v as { const?: unknown }).const);
		if (consts.every((v) => v !== undefined)) return `one of ${consts.map((v) => JSON.stringify(v)).join(", ")}`;
		return s.anyOf.map(describeSchema).join(" or ");
	}
	if (s.const !== undefined) return JSON.stringify(s.const);
	if (s.type === "array") return `a list of ${describeSchema(s.items ?? {}).replace(/^an? /, "")}s`;
	if (s.type === "object") return "an object";
	if (s.type === "number" || s.type === "integer") {
		const most = s.maximum !== undefined ? ` and at most ${s.maximum}` : "";
		if (s.exclusiveMinimum !== undefined) return `a number above ${s.exclusiveMinimum}${most}`;
		if (s.minimum !== undefined) return `a number of at least ${s.minimum}${most}`;
		return s.maximum !== undefined ? `a number of at most ${s.maximum}` : "a number";
	}
	if (s.type === "boolean") return "true or false";
	if (s.type === "string") return "a string";
	return "valid";
}

/** Whether a value has the schema's shape (the TypeBox schema read as JSON Schema; see json-check.ts). */
export function isValid<T extends TSchema>(schema: T, value: unknown): value is Static<T> {
	return checks(schema, value);
}

/** Keys of `value` the schema does not know, each as `unknown <what> "x" ignored (did you mean "y"?)`. */
export function unknownKeys(schema: TSchema, value: unknown, what: string, accepted: readonly string[] = []): string[] {
	if (typeof value !== "object" || value === null || Array.isArray(value)) return [];
	const known = Object.keys((schema as { properties?: Record<string, unknown> }).properties ?? {});
	return Object.keys(value)
		.filter((key) => !known.includes(key) && !accepted.includes(key))
		.map((key) => {
			const near = closestNames(key, known, 1)[0];
			return `unknown ${what} ${JSON.stringify(key)} ignored${near ? ` (did you mean ${JSON.stringify(near)}?)` : ""}`;
		});
}
