// The fault suite through the real `pi -p` (both lines): every fault fixture at once, beside a
// healthy server. Searches answer while dead servers are still "connecting"; each faulty call
// fails fast and clearly; Pi exits by itself after its answer, with its own exit code
// (0, 1 after a model error, 143 on SIGTERM); no process and no file is left behind.
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CACHE_FILE } from "../../metadata-cache.ts";
import {
	EVERYTHING,
	faultStdio,
	freePort,
	marked,
	ROOT,
	stopChild,
	TSX,
	waitForPort,
	waitUntil,
} from "../support/helpers.ts";
import { type ChatRequest, lastToolMessage } from "../support/mock-openai.ts";
import { createPiHome, type PiHome, piCommand, runPi } from "../support/pi-cli-harness.ts";
import { PI_HOSTS } from "../support/pi-hosts.ts";

const STDIO_FAULTS = ["never-initialize", "ignore-sigterm", "flood", "deep-schema"];
const HTTP_FAULTS = ["silent", "half-open", "reset-stream", "huge-body"];

describe.each(PI_HOSTS)("faulty servers in the real pi ($name)", (host) => {
	let home: PiHome;
	let tmp: string;
	const marker = randomUUID();
	const children: ReturnType<typeof spawn>[] = [];
	beforeEach(async () => {
		const servers: Record<string, unknown> = {
			ok: { command: process.execPath, args: [EVERYTHING, "stdio"], env: { FAULT_MARKER: marker } },
		};
		for (const mode of STDIO_FAULTS) {
			servers[mode.replace(/-/g, "_")] = faultStdio(mode, { FAULT_MARKER: marker });
		}
		for (const mode of HTTP_FAULTS) {
			const port = await freePort();
			const child = spawn(process.execPath, [TSX, join(ROOT, "tests/fixtures/fault-http.ts"), mode, String(port)], {
				stdio: "ignore",
			});
			children.push(child);
			await waitForPort(port, child);
			servers[`http_${mode.replace(/-/g, "_")}`] = { url: `http://127.0.0.1:${port}/mcp` };
		}
		// Nothing listens there: the failed SSE fallback must not keep retrying (and Pi alive).
		servers.unreachable = { url: `http://127.0.0.1:${await freePort()}/mcp` };
		home = await createPiHome({ mcpConfig: { mcpServers: servers } });
		tmp = join(home.root, "tmp");
		mkdirSync(tmp);
	});
	afterEach(async () => {
		await Promise.all(children.splice(0).map(stopChild));
		await home.dispose();
	});

	it("searches answer while dead servers connect; faulty calls fail fast; pi exits with 0, leaving nothing", async () => {
		// The first search waits for the event it is about (the healthy server catalogued), never for a time:
		// its answer then shows the healthy server's tools beside the dead ones still connecting.
		const cache = join(home.agentDir, CACHE_FILE);
		const okCatalogued = () =>
			existsSync(cache) &&
			Object.keys(JSON.parse(readFileSync(cache, "utf8")).servers).some((k) => k.startsWith("ok "));
		const answers: string[] = [];
		const calls = [
			{ search: "echo" },
			{ search: "echo text" },
			{ tool: "flood_blast" },
			{ tool: "http_huge_body_work" },
			{ tool: "http_reset_stream_work" },
			{ describe: "deep_schema_deep" },
			{ tool: "ok_echo", args: { message: "still here" } },
		];
		const steps = [
			...calls.map((args, i) => async (req: ChatRequest) => {
				if (i === 0) await waitUntil(okCatalogued, "the healthy server's tools in the cache");
				else answers.push(lastToolMessage(req));
				return { toolCall: { name: "mcp", arguments: args } };
			}),
			(req: ChatRequest) => {
				answers.push(lastToolMessage(req));
				return { text: "done" };
			},
		];
		const run = await runPi(home, "exercise every server", { host, steps, env: { TMPDIR: tmp }, timeoutMs: 120_000 });
		expect(run.code, run.stderr).toBe(0);
		const [first, again, flood, huge, reset, deep, ok] = answers;
		// The dead servers are still connecting (their connect timeout is 30 s): the searches answer
		// without them and say so, rather than waiting for them or calling them failed.
		expect(first).toContain("ok_echo");
		expect(first).toMatch(/still starting: .*never_initialize/);
		expect(again).toContain("ok_echo");
		expect(flood).toContain("more than 128 MB without a line end");
		expect(huge).toContain("over 128 MB; it was cut off");
		// The reset is reported as such, not as the 60 s request timeout it would become if missed.
		expect(reset).toContain("Connection lost before the answer");
		expect(deep).toContain("A schema nested 8000 levels");
		expect(ok).toBe("Echo: still here");
		expect(marked(marker)).toEqual([]);
		expect(readdirSync(tmp).filter((n) => n.startsWith("pi-mcp"))).toEqual([]);
	}, 150_000);

	it("pi's own exit code survives shutdown: after a model error, and 143 on SIGTERM, even with stubborn servers", async () => {
		// The model endpoint fails while the servers are still connecting; Pi's code is what it is without the extension
		// (Pi 1.5 exits 1; pi 0.73 exits 0 after a model error in print mode). The status answers at
		// once (a search would wait for the servers it needs: the dead ones until their connect deadline).
		const failing = () => [() => ({ toolCall: { name: "mcp", arguments: {} } }), () => ({ httpStatus: 500 })];
		const own = await runPi(home, "hi", { host, steps: failing(), noExtension: true });
		const broken = await runPi(home, "hi", { host, steps: failing(), env: { TMPDIR: tmp } });
		expect(broken.code, broken.stderr).toBe(own.code);
		if (host.pi1) expect(broken.code).toBe(1);
		expect(marked(marker)).toEqual([]);

		home.model.script([() => ({ toolCall: { name: "mcp", arguments: { tool: "ok_echo", args: { message: "x" } } } })]);
		const { node, args, env } = piCommand(home, ["-p"], { host, extraArgs: ["wait"], env: { TMPDIR: tmp } });
		const child = spawn(node, args, { cwd: home.cwd, env, stdio: "ignore" });
		// Mid-session: the called server and the one that never initializes (started again each session) run.
		await waitUntil(() => marked(marker).length >= 2, "servers of this session to start");
		child.kill("SIGTERM");
		const code = await new Promise<number | null>((resolve) =>
			child.on("close", (c, signal) => resolve(c ?? (signal ? 128 + 15 : null))),
		);
		expect(code).toBe(143);
		await waitUntil(() => marked(marker).length === 0, "every server of the session to end");
	}, 300_000);
});
