// Why a connection failed, in words a person acts on: the reason first, then the fix. A remote
// server the network cannot reach ("the name host was not found (DNS)"), one that answers both
// transports with the same HTTP status, a stdio server that exited before it was ready or during a
// call (its exit code and what it said last on stderr). The transports' own words are kept only
// as the error's `cause`.
import { causeChain, describeError, httpStatus, isInputClosed } from "../errors.ts";
import { maskUrl } from "../trust/redaction.ts";

/** Node's codes for a network that does not get through, and what each means, for a host. */
const NETWORK: Readonly<Record<string, (host: string) => string>> = {
	ENOTFOUND: (host) => `the name ${host} was not found (DNS)`,
	EAI_AGAIN: (host) => `the name ${host} could not be looked up (DNS did not answer: offline?)`,
	ECONNREFUSED: (host) => `nothing accepts connections at ${host} (connection refused)`,
	ECONNRESET: (host) => `${host} closed the connection (reset)`,
	ETIMEDOUT: (host) => `${host} did not answer (timed out)`,
	UND_ERR_CONNECT_TIMEOUT: (host) => `${host} did not answer (timed out)`,
	EHOSTUNREACH: (host) => `no route to ${host} (host unreachable)`,
	ENETUNREACH: (host) => `no route to ${host} (network unreachable)`,
	CERT_HAS_EXPIRED: () => "its TLS certificate has expired",
	DEPTH_ZERO_SELF_SIGNED_CERT: () => "its TLS certificate is self-signed (NODE_EXTRA_CA_CERTS can name it as trusted)",
	SELF_SIGNED_CERT_IN_CHAIN: () =>
		"its TLS certificate chain ends in a self-signed certificate (NODE_EXTRA_CA_CERTS can name it as trusted)",
	UNABLE_TO_VERIFY_LEAF_SIGNATURE: () =>
		"its TLS certificate's issuer is not trusted here (NODE_EXTRA_CA_CERTS can name it)",
	UNABLE_TO_GET_ISSUER_CERT_LOCALLY: () =>
		"its TLS certificate's issuer is not trusted here (NODE_EXTRA_CA_CERTS can name it)",
	ERR_TLS_CERT_ALTNAME_INVALID: (host) => `its TLS certificate is not for ${host}`,
};

const CODE_IN_TEXT = new RegExp(`\\b(${Object.keys(NETWORK).join("|")})\\b`);

/** The network code an error (or one it wraps, or its text) carries, if any. */
export function networkCode(error: unknown): string | undefined {
	for (const e of causeChain(error)) {
		const code = (e as { code?: unknown } | null)?.code;
		if (typeof code === "string" && code in NETWORK) return code;
	}
	return CODE_IN_TEXT.exec(describeError(error))?.[1];
}

/**
 * Why neither streamable HTTP nor its SSE fallback connected to `url`, one sentence for both: the
 * network's reason, or the HTTP status both answered with, and where to change the URL; else each
 * transport's own words, after the reason that they both failed.
 */
export function httpFailure(url: URL, file: string, streamable: unknown, sse: unknown): Error {
	const shown = maskUrl(url.href);
	const host = url.port ? `${url.hostname}:${url.port}` : url.hostname;
	const code = networkCode(streamable) ?? networkCode(sse);
	const cause = streamable;
	if (code) {
		const why = NETWORK[code](host);
		const fix = code.includes("CERT") ? "" : ` Check the URL in ${file}.`;
		return new Error(`Cannot reach ${shown}: ${why}.${fix}`, { cause });
	}
	const statuses = [statusOf(streamable), statusOf(sse)];
	if (statuses[0] !== undefined && statuses[0] === statuses[1]) {
		const hint =
			statuses[0] === 404 || statuses[0] === 405 ? ` Is it the server's MCP address? Check the URL in ${file}.` : "";
		return new Error(`${shown} answered HTTP ${statuses[0]} over streamable HTTP and over SSE.${hint}`, { cause });
	}
	return new Error(
		`${shown} connected over neither streamable HTTP (${describeError(streamable)}) nor SSE (${describeError(sse)}).`,
		{ cause },
	);
}

/** An HTTP status an error carries, or its text names ("HTTP 404", "status code (404)", "Non-200 status code (404)"). */
function statusOf(error: unknown): number | undefined {
	for (const e of causeChain(error)) {
		const status = httpStatus(e);
		if (status !== undefined) return status;
	}
	const named = /\b(?:HTTP|status code)\s*\(?(\d{3})\b/i.exec(describeError(error));
	return named ? Number(named[1]) : undefined;
}

/**
 * Why a stdio server did not start, in words: that it exited (the SDK says "Connection closed") or
 * closed its input (the SDK says "write EPIPE": it exited, or will not read), else the error as it is.
 */
export function startFailure(error: unknown, exit: string | undefined): string {
	if (exit) return `the server exited (${exit}) before it was ready`;
	if (isInputClosed(error)) return "the server stopped reading its input before it was ready";
	return describeError(error);
}
