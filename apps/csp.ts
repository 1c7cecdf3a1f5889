// The Content Security Policies and sandbox flags of an MCP App's page (SEP-1865), built from what
// the view's resource declares (`_meta.ui.csp`, `_meta.ui.permissions`) and nothing else: the
// spec's restrictive default when it declares nothing, its declared origins only, never more.
// Three documents on two loopback origins: the host page (ours, holding the page's token), the
// sandbox page on another origin (a relay without secrets), and the view inside it. The declared
// names are first kept to provably public ones (`publicCsp`, apps/public-hosts.ts).
import { type PublicHostsOptions, publicHosts } from "./public-hosts.ts";

/** The origins a view declares it needs (the spec's `McpUiResourceCsp`). */
export interface ViewCsp {
	readonly connectDomains?: readonly string[];
	readonly resourceDomains?: readonly string[];
	readonly frameDomains?: readonly string[];
	readonly baseUriDomains?: readonly string[];
}

/** The browser features a view asks for (the spec's `McpUiResourcePermissions`). */
export interface ViewPermissions {
	readonly camera?: object;
	readonly microphone?: object;
	readonly geolocation?: object;
	readonly clipboardWrite?: object;
}

/**
 * The view's iframe: scripts and forms, and no origin of its own (opaque, "null": no
 * `allow-same-origin`). A loopback origin would share its cookies with every local service on
 * 127.0.0.1 (cookies ignore ports) and make its requests to them same-site; an opaque one has no
 * cookies or storage and is no one's site. No popups, modals, downloads or top navigation (2.36
 * allows the first three): links open through the host (`ui/open-link`).
 */
export const VIEW_SANDBOX = "allow-scripts allow-forms";

/**
 * The sandbox page's iframe in the host page: the view's flags (a nested frame gets no more than
 * its parent) and its own origin, which the host page checks on every message it relays.
 */
export const SANDBOX_PAGE_SANDBOX = "allow-scripts allow-same-origin allow-forms";

/**
 * One declared origin, as a CSP source: a scheme with a host (a `*.` wildcard first label, a port,
 * a path allowed). Anything else is dropped: a keyword (`'unsafe-eval'`), a bare `*` or scheme
 * (`https:` would allow every site), a `;` or space that would start another directive or source,
 * an IPv6 literal (no brackets).
 */
const SOURCE =
	/^(https?|wss?):\/\/(?<host>(\*\.)?[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*)(:(\d{1,5}|\*))?(\/[A-Za-z0-9._~%!$&()*+=:@/-]*)?$/;

/** Names for this machine or the local network only (RFC 6761 `localhost`, mDNS `.local`, `.internal`, `.arpa`). */
const LOCAL_NAME = /(^|\.)(localhost|local|internal|arpa)$/;
/** A host a browser reads as an IPv4 address, in any notation: its last label a number (`127.0.0.1`, `2130706433`, `0x7f.1`). */
const IPV4 = /(^|\.)(\d+|0x[0-9a-f]*)$/;

/**
 * The host a declared source names (lower case, a `*.` wildcard kept), or undefined when the source
 * is not well formed or names this machine or the local network by its form: every IP literal and
 * local name. A name that resolves to such an address is `publicCsp`'s to drop.
 */
function remoteHost(declared: unknown): string | undefined {
	const host = typeof declared === "string" ? SOURCE.exec(declared)?.groups?.host?.toLowerCase() : undefined;
	return host === undefined || LOCAL_NAME.test(host) || IPV4.test(host) ? undefined : host;
}

/** The well-formed origins of a declared list, each once; none on this machine or the local network by its form. */
export function cspSources(declared: unknown): string[] {
	if (!Array.isArray(declared)) return [];
	return [...new Set(declared.filter((d): d is string => remoteHost(d) !== undefined))];
}

/**
 * The declared policy kept to origins whose names are provably public now (apps/public-hosts.ts:
 * a public suffix, no wildcard DNS service, every address public); what the page is served with.
 * Waits for the names' lookups, within their deadline; never rejects.
 */
export async function publicCsp(declared: ViewCsp | undefined, options?: PublicHostsOptions): Promise<ViewCsp> {
	const lists = appliedCsp(declared);
	const hosts = Object.values(lists)
		.flat()
		.map((source) => remoteHost(source) as string);
	const kept = await publicHosts(hosts, options);
	const keep = (list: readonly string[]) => list.filter((source) => kept.has(remoteHost(source) as string));
	return {
		connectDomains: keep(lists.connectDomains),
		resourceDomains: keep(lists.resourceDomains),
		frameDomains: keep(lists.frameDomains),
		baseUriDomains: keep(lists.baseUriDomains),
	};
}

/** The origins a page's policy actually allows (what the host tells the view it approved). */
export function appliedCsp(declared: ViewCsp | undefined): Record<keyof ViewCsp, string[]> {
	return {
		connectDomains: cspSources(declared?.connectDomains),
		resourceDomains: cspSources(declared?.resourceDomains),
		frameDomains: cspSources(declared?.frameDomains),
		baseUriDomains: cspSources(declared?.baseUriDomains),
	};
}

const directive = (name: string, sources: readonly string[], fallback: string) =>
	`${name} ${sources.length > 0 ? sources.join(" ") : fallback}`;

/**
 * The view's policy, sent as its response header (a header, unlike a meta tag, cannot be edited by
 * the page). The spec's default, widened only by the declared origins; workers, plugins and form
 * submissions off (a form could post anywhere); framed only inside our pages (`ancestors`: the
 * sandbox page and the host page above it, since a browser checks every ancestor).
 */
export function viewCsp(declared: ViewCsp | undefined, ancestors: readonly string[]): string {
	const resources = cspSources(declared?.resourceDomains);
	return [
		"default-src 'none'",
		`script-src 'self' 'unsafe-inline'${resources.map((d) => ` ${d}`).join("")}`,
		`style-src 'self' 'unsafe-inline'${resources.map((d) => ` ${d}`).join("")}`,
		`img-src 'self' data:${resources.map((d) => ` ${d}`).join("")}`,
		`media-src 'self' data:${resources.map((d) => ` ${d}`).join("")}`,
		directive("font-src", ["'self'", ...resources], "'self'"),
		directive("connect-src", cspSources(declared?.connectDomains), "'none'"),
		directive("frame-src", cspSources(declared?.frameDomains), "'none'"),
		directive("base-uri", cspSources(declared?.baseUriDomains), "'self'"),
		"worker-src 'none'",
		"object-src 'none'",
		"form-action 'none'",
		`frame-ancestors ${ancestors.join(" ")}`,
		`sandbox ${VIEW_SANDBOX}`,
	].join("; ");
}

/** The sandbox page's policy: its own script and style (by nonce), the view (same origin), framed only by the host page. */
export function sandboxCsp(nonce: string, hostOrigin: string): string {
	return [
		"default-src 'none'",
		`script-src 'nonce-${nonce}'`,
		`style-src 'nonce-${nonce}'`,
		"frame-src 'self'",
		"base-uri 'none'",
		"form-action 'none'",
		`frame-ancestors ${hostOrigin}`,
	].join("; ");
}

/** The host page's policy: its own script and style (by nonce), its channel (same origin), the sandbox page; framed by no one. */
export function hostCsp(nonce: string, sandboxOrigin: string): string {
	return [
		"default-src 'none'",
		`script-src 'nonce-${nonce}'`,
		`style-src 'nonce-${nonce}'`,
		"connect-src 'self'",
		`frame-src ${sandboxOrigin}`,
		"base-uri 'none'",
		"form-action 'none'",
		"frame-ancestors 'none'",
	].join("; ");
}

/** The iframe `allow` attribute for the features a view asks for (the browser still asks the user). */
export function allowAttribute(permissions: ViewPermissions | undefined): string {
	const features: [keyof ViewPermissions, string][] = [
		["camera", "camera"],
		["microphone", "microphone"],
		["geolocation", "geolocation"],
		["clipboardWrite", "clipboard-write"],
	];
	return features
		.filter(([key]) => typeof permissions?.[key] === "object" && permissions[key] !== null)
		.map(([, feature]) => feature)
		.join("; ");
}
