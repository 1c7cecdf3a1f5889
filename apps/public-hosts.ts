// Which of the host names an MCP App's view declares for its policy are provably public, so its
// CSP never lets a remote view reach this machine or the local network by name (apps/csp.ts drops
// IP literals and local names by their form; a name can point anywhere). A name is kept only when
// all of these hold:
// - it ends in a suffix of the public suffix list (tldts): `.lan`, `.home`, `.corp`, `.test`,
//   `.example`, any TLD no registry runs, is dropped; a wildcard (`*.x`) only over a registrable
//   name, never over a suffix (`*.com`, `*.github.io` would cover everyone's names);
// - it is not under a wildcard DNS service, which answers for any name under it with the address
//   the name spells (`127.0.0.1.nip.io`) or with loopback: one lookup says nothing of the rest;
// - it resolves now, and every address it resolves to (A and AAAA) is public: none loopback,
//   private, link-local, shared (CGNAT), unspecified, multicast or reserved.
// A name that does not resolve (no DNS here, a typo, a lookup past the deadline) is not provably
// public and is dropped: the view loses that origin in this page, which is the safe side. The
// lookups go to the system's DNS servers (c-ares: no thread of the pool, cancelled at the
// deadline), not through /etc/hosts. This is a check at the page's start: a name whose answer
// changes later (DNS rebinding) is not caught, as no policy made of names can catch it.
import { Resolver } from "node:dns/promises";
import { BlockList, isIP } from "node:net";
import { parse } from "tldts";

/** Every address a name resolves to now (A and AAAA); rejects or returns none when it does not resolve. */
export type ResolveHost = (host: string) => Promise<readonly string[]>;

/** The longest the lookups of one page's names may take: a slower name is dropped, the page opens. */
export const LOOKUP_DEADLINE_MS = 3000;

/**
 * Wildcard DNS services: every name under them resolves to the address it spells, or to loopback
 * (`localtest.me`, `lvh.me`), so no lookup of one name shows where another goes.
 */
const WILDCARD_DNS = new Set([
	"nip.io",
	"sslip.io",
	"xip.io",
	"traefik.me",
	"localtest.me",
	"lvh.me",
	"vcap.me",
	"lacolhost.com",
	"localhost.direct",
]);

/** Addresses that are not the public internet's (IANA's special-purpose registries, both families). */
const NOT_PUBLIC = (() => {
	const list = new BlockList();
	const v4: [string, number][] = [
		["0.0.0.0", 8], // this network, the unspecified address
		["10.0.0.0", 8],
		["100.64.0.0", 10], // shared address space (carrier-grade NAT)
		["127.0.0.0", 8],
		["169.254.0.0", 16],
		["172.16.0.0", 12],
		["192.0.0.0", 24],
		["192.0.2.0", 24],
		["192.168.0.0", 16],
		["198.18.0.0", 15],
		["198.51.100.0", 24],
		["203.0.113.0", 24],
		["224.0.0.0", 4], // multicast
		["240.0.0.0", 4], // reserved, and the broadcast address
	];
	const v6: [string, number][] = [
		["::", 127], // unspecified and loopback
		["64:ff9b::", 96], // NAT64: an IPv4 address behind it may be a private one
		["2001::", 32], // Teredo
		["2001:db8::", 32],
		["2002::", 16], // 6to4: an IPv4 address inside
		["fc00::", 7], // unique local
		["fe80::", 10], // link-local
		["fec0::", 10], // site-local (deprecated, still routed on some networks)
		["ff00::", 8], // multicast
	];
	for (const [net, prefix] of v4) list.addSubnet(net, prefix, "ipv4");
	for (const [net, prefix] of v6) list.addSubnet(net, prefix, "ipv6");
	return list;
})();

/** Whether an address is on the public internet (an IPv4-mapped IPv6 address is judged as its IPv4 one). */
export function publicAddress(address: string): boolean {
	const version = isIP(address);
	return version !== 0 && !NOT_PUBLIC.check(address, version === 6 ? "ipv6" : "ipv4");
}

/**
 * Whether a declared host (`name` or `*.name`, lower case) may be public by its name alone: a
 * registrable name under a listed public suffix, not under a wildcard DNS service. The name to
 * resolve, or undefined when its name already rules it out.
 */
export function nameToResolve(host: string): string | undefined {
	const wildcard = host.startsWith("*.");
	const name = wildcard ? host.slice(2) : host;
	const parsed = parse(name, { allowPrivateDomains: true });
	if (parsed.isIp || parsed.domain === null || !(parsed.isIcann || parsed.isPrivate)) return undefined;
	// `*.github.io` or `*.co.uk`: the suffix itself, every registrant's names under it.
	if (wildcard && name === parsed.publicSuffix) return undefined;
	const registrable = parse(name).domain;
	if (registrable !== null && WILDCARD_DNS.has(registrable)) return undefined;
	return name;
}

/** The system's DNS, answering within the deadline or cancelled there. */
export function systemResolver(deadlineMs = LOOKUP_DEADLINE_MS): { resolve: ResolveHost; cancel(): void } {
	const resolver = new Resolver({ timeout: deadlineMs, tries: 1 });
	const family = (lookup: Promise<string[]>) => lookup.catch((): string[] => []);
	return {
		resolve: async (host) => [...(await family(resolver.resolve4(host))), ...(await family(resolver.resolve6(host)))],
		cancel: () => resolver.cancel(),
	};
}

export interface PublicHostsOptions {
	/** How names are looked up (default: the system's DNS; tests inject their own). */
	readonly resolve?: ResolveHost;
	/** Ends the lookups early (the call that opens the page ended): what has not answered is dropped. */
	readonly signal?: AbortSignal;
	readonly deadlineMs?: number;
}

/**
 * The declared hosts (lower case, `*.` wildcards allowed) that are provably public now, looked up
 * together, each once; a host whose lookup fails, finds nothing, or has not answered by the
 * deadline (or the signal) is left out. Never rejects.
 */
export async function publicHosts(hosts: Iterable<string>, options: PublicHostsOptions = {}): Promise<Set<string>> {
	const names = new Map<string, string>(); // declared host -> the name to resolve
	for (const host of hosts) {
		const name = nameToResolve(host);
		if (name !== undefined) names.set(host, name);
	}
	if (names.size === 0) return new Set();
	const deadlineMs = options.deadlineMs ?? LOOKUP_DEADLINE_MS;
	const system = options.resolve ? undefined : systemResolver(deadlineMs);
	const resolve = options.resolve ?? (system as { resolve: ResolveHost }).resolve;
	let stop: () => void = () => undefined;
	const stopped = new Promise<"stopped">((resolveStop) => {
		stop = () => resolveStop("stopped");
	});
	const timer = setTimeout(stop, deadlineMs);
	if (options.signal?.aborted) stop();
	options.signal?.addEventListener("abort", stop, { once: true });
	try {
		const unique = [...new Set(names.values())];
		const verdicts = new Map<string, boolean>();
		await Promise.race([
			Promise.all(
				unique.map(async (name) => {
					const addresses = await resolve(name).catch((): readonly string[] => []);
					verdicts.set(name, addresses.length > 0 && addresses.every(publicAddress));
				}),
			),
			stopped,
		]);
		return new Set([...names].filter(([, name]) => verdicts.get(name) === true).map(([host]) => host));
	} finally {
		clearTimeout(timer);
		options.signal?.removeEventListener("abort", stop);
		system?.cancel(); // the lookups still running end here: what they would say is not waited for
	}
}
