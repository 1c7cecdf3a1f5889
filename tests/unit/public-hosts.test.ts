// A view's CSP keeps a declared name only when it is provably public: a public suffix, no wildcard
// DNS service, and every address it resolves to public. The lookups are injected: no network.
import { describe, expect, it } from "vitest";
import { publicCsp } from "../../apps/csp.ts";
import { publicAddress, publicHosts, type ResolveHost } from "../../apps/public-hosts.ts";

/** A resolver answering from a table (a missing name does not resolve), recording what it was asked. */
function table(answers: Record<string, readonly string[]>): { resolve: ResolveHost; asked: string[] } {
	const asked: string[] = [];
	return {
		asked,
		resolve: async (name) => {
			asked.push(name);
			const addresses = answers[name];
			if (!addresses) throw Object.assign(new Error(`queryA ENOTFOUND ${name}`), { code: "ENOTFOUND" });
			return addresses;
		},
	};
}

describe("a declared name in a view's policy", () => {
	it("is dropped unasked when its suffix is no public one, it is a whole suffix, or a wildcard DNS service holds it", async () => {
		const dns = table({});
		const names = [
			"printer.lan",
			"nas.home",
			"intranet.corp",
			"app.example",
			"dev.test",
			"box.localdomain",
			"*.com",
			"*.co.uk",
			"*.github.io",
			"127.0.0.1.nip.io",
			"*.nip.io",
			"10-0-0-1.sslip.io",
			"127.0.0.1.sslip.io",
			"localtest.me",
			"app.lvh.me",
			"x.traefik.me",
		];
		expect(await publicHosts(names, { resolve: dns.resolve })).toEqual(new Set());
		expect(dns.asked).toEqual([]);
	});

	it("is kept only when every address it resolves to is public; a wildcard by its own name", async () => {
		const dns = table({
			"api.board.example.com": ["93.184.215.14", "2606:2800:21f:cb07:6820:80da:af6b:8b2c"],
			"example.org": ["93.184.215.14"],
			"pages.github.io": ["185.199.108.153"],
			"home.example.com": ["127.0.0.1"],
			"mixed.example.com": ["93.184.215.14", "192.168.1.10"],
			"metadata.example.com": ["169.254.169.254"],
			"v6.example.com": ["::1"],
			"mapped.example.com": ["::ffff:10.0.0.1"],
			"nothing.example.com": [],
		});
		const kept = await publicHosts(
			[
				"api.board.example.com",
				"*.example.org",
				"pages.github.io",
				"home.example.com",
				"mixed.example.com",
				"metadata.example.com",
				"v6.example.com",
				"mapped.example.com",
				"nothing.example.com",
				"unknown.example.com",
			],
			{ resolve: dns.resolve },
		);
		expect(kept).toEqual(new Set(["api.board.example.com", "*.example.org", "pages.github.io"]));
	});

	it("names an address of no public network in every range Pi's machine or its network may hold", () => {
		const local = [
			"0.0.0.0",
			"127.0.0.1",
			"127.8.9.10",
			"10.1.2.3",
			"172.16.0.1",
			"172.31.255.254",
			"192.168.0.1",
			"169.254.169.254",
			"100.64.0.1",
			"100.127.255.254",
			"224.0.0.1",
			"255.255.255.255",
			"::",
			"::1",
			"fc00::1",
			"fd12:3456::1",
			"fe80::1",
			"ff02::1",
			"::ffff:127.0.0.1",
			"::ffff:192.168.1.1",
			"64:ff9b::a00:1",
			"not an address",
		];
		expect(local.filter(publicAddress)).toEqual([]);
		expect(["93.184.215.14", "8.8.8.8", "172.32.0.1", "100.128.0.1", "2606:4700::1111"].every(publicAddress)).toBe(
			true,
		);
	});

	it("that has not answered by the deadline, or when the call ends, is dropped; those that answered stay", async () => {
		const never: ResolveHost = (name) =>
			name === "fast.example.com" ? Promise.resolve(["93.184.215.14"]) : new Promise(() => undefined);
		const hosts = ["fast.example.com", "slow.example.com"];
		expect(await publicHosts(hosts, { resolve: never, deadlineMs: 1 })).toEqual(new Set(["fast.example.com"]));
		const ended = new AbortController();
		const looking = publicHosts(hosts, { resolve: never, signal: ended.signal, deadlineMs: 3_600_000 });
		ended.abort();
		expect(await looking).toEqual(new Set(["fast.example.com"]));
	});
});

describe("a view's applied policy", () => {
	it("keeps each directive's provably public origins, ports and paths as declared", async () => {
		const dns = table({ "api.board.example.com": ["93.184.215.14"], "cdn.example.net": ["93.184.215.15"] });
		const csp = await publicCsp(
			{
				connectDomains: ["https://api.board.example.com:8443/v1", "https://printer.lan", "wss://127.0.0.1.nip.io"],
				resourceDomains: ["https://cdn.example.net", "https://localtest.me", "'unsafe-eval'"],
				frameDomains: ["https://nas.home", "https://cdn.example.net"],
			},
			{ resolve: dns.resolve },
		);
		expect(csp).toEqual({
			connectDomains: ["https://api.board.example.com:8443/v1"],
			resourceDomains: ["https://cdn.example.net"],
			frameDomains: ["https://cdn.example.net"],
			baseUriDomains: [],
		});
		// Each name looked up once, even when declared in several directives.
		expect(dns.asked.sort()).toEqual(["api.board.example.com", "cdn.example.net"]);
	});
});
