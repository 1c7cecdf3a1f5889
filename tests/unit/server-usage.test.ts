// What a project's sessions called, as the next session's warm-up reads it: what is recorded (names
// and times, once per session), the window, the misses that stop a guess, the file's bounds, and a
// damaged file.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
	learnedServers,
	MAX_MISSES,
	MAX_WARMED,
	parseUsage,
	ServerUsage,
	USAGE_FILE,
	USED_WITHIN_MS,
	type Usage,
	withUse,
} from "../../start-up/server-usage.ts";
import { tempDir } from "../support/helpers.ts";

const T0 = 1_700_000_000_000;

describe("the servers a project used lately", () => {
	let dir: ReturnType<typeof tempDir>;
	let now: number;
	const usage = () => new ServerUsage(dir.path, () => now);
	const file = () => JSON.parse(readFileSync(join(dir.path, USAGE_FILE), "utf8"));
	beforeEach(() => {
		dir = tempDir();
		now = T0;
	});
	afterEach(() => dir.remove());

	it("records the servers a session called, once per session: names and times only", async () => {
		const session = usage();
		session.used("/repo", "github");
		session.used("/repo", "github");
		session.used("/repo", "memory");
		await session.flush();
		expect(file()).toEqual({
			version: 1,
			projects: {
				"/repo": {
					github: { at: T0, sessions: 1, misses: 0, order: 0 },
					memory: { at: T0, sessions: 1, misses: 0, order: 1 },
				},
			},
		});
		now += 1000;
		session.newSession();
		session.used("/repo", "github");
		await session.flush();
		expect(file().projects["/repo"].github).toEqual({ at: T0 + 1000, sessions: 2, misses: 0, order: 0 });
		expect(session.learned("/repo")).toEqual(["github", "memory"]);
		expect(session.learned("/other")).toEqual([]);
	});

	it("a server called within the window is learned; one called before it is not, and leaves the file", async () => {
		const session = usage();
		session.used("/repo", "old");
		await session.flush();
		now += USED_WITHIN_MS;
		expect(session.learned("/repo")).toEqual(["old"]);
		now += 1;
		expect(session.learned("/repo")).toEqual([]);
		session.used("/repo", "new");
		await session.flush();
		expect(Object.keys(file().projects["/repo"])).toEqual(["new"]);
	});

	it("sessions in a row that started a server early and never called it stop the guess; a call learns it again", async () => {
		const session = usage();
		session.used("/repo", "memory");
		await session.flush();
		for (let i = 0; i < MAX_MISSES; i++) {
			expect(session.learned("/repo")).toEqual(["memory"]);
			session.newSession();
			session.warmed("/repo", ["memory"]);
			await session.flush();
		}
		expect(session.learned("/repo")).toEqual([]);
		session.newSession();
		session.used("/repo", "memory");
		await session.flush();
		expect(session.learned("/repo")).toEqual(["memory"]);
	});

	it("a server started early and then called in the same session is no miss", async () => {
		const session = usage();
		session.used("/repo", "memory");
		session.newSession();
		session.used("/repo", "memory");
		session.warmed("/repo", ["memory"]);
		await session.flush();
		expect(file().projects["/repo"].memory.misses).toBe(0);
	});

	it("in the order the last session called them: the first call's server starts first", async () => {
		const session = usage();
		for (const server of ["everything", "memory", "filesystem"]) {
			session.used("/repo", server);
			now += 1000; // the last one called is the most recent
		}
		await session.flush();
		expect(session.learned("/repo")).toEqual(["everything", "memory", "filesystem"]);
		// A file of an earlier version has no order: those servers follow.
		writeFileSync(
			join(dir.path, USAGE_FILE),
			JSON.stringify({
				version: 1,
				projects: { "/repo": { old: { at: now, sessions: 1, misses: 0 }, ...file().projects["/repo"] } },
			}),
		);
		expect(session.learned("/repo")).toEqual(["everything", "memory", "filesystem", "old"]);
	});

	it("the most recently called, at most a few", () => {
		let learned: Usage = new Map();
		for (let i = 0; i < MAX_WARMED + 2; i++) learned = withUse(learned, "/repo", [`s${i}`], T0 + i);
		const newest = Array.from({ length: MAX_WARMED }, (_, i) => `s${MAX_WARMED + 1 - i}`);
		expect(learnedServers(learned, "/repo", T0 + 10)).toEqual(newest);
	});

	it("the file stays small: 50 projects and 20 servers a project, the most recent kept", () => {
		let learned: Usage = new Map();
		for (let i = 0; i < 60; i++) learned = withUse(learned, `/p${i}`, ["a"], T0 + i);
		for (let i = 0; i < 25; i++) learned = withUse(learned, "/p59", [`s${i}`], T0 + 100 + i);
		expect(learned.size).toBe(50);
		expect(learned.has("/p9")).toBe(false);
		expect(learned.has("/p10")).toBe(true);
		expect(learned.get("/p59")?.size).toBe(20);
		expect(learned.get("/p59")?.has("s5")).toBe(true);
		expect(learned.get("/p59")?.has("s4")).toBe(false);
	});

	it("a damaged file reads as nothing learned and is replaced at the next write", async () => {
		const path = join(dir.path, USAGE_FILE);
		writeFileSync(path, "{ not json");
		const session = usage();
		expect(session.learned("/repo")).toEqual([]);
		session.used("/repo", "memory");
		await session.flush();
		expect(file().projects["/repo"].memory.sessions).toBe(1);
	});

	it("records of the wrong shape are left out, the rest kept", () => {
		const read = parseUsage({
			version: 1,
			projects: {
				"/repo": {
					good: { at: T0, sessions: 2, misses: 0 },
					noTime: { sessions: 2, misses: 0 },
					text: { at: "yesterday", sessions: 1, misses: 0 },
					negative: { at: T0, sessions: -1, misses: 0 },
				},
				"/list": [],
			},
		});
		expect([...read.keys()]).toEqual(["/repo"]);
		expect([...(read.get("/repo")?.keys() ?? [])]).toEqual(["good"]);
		expect(parseUsage({ version: 2, projects: {} }).size).toBe(0);
		expect(parseUsage(["x"]).size).toBe(0);
	});

	it("a project or server named like an object's own keys is one like any other", async () => {
		const session = usage();
		session.used("__proto__", "constructor");
		await session.flush();
		expect(session.learned("__proto__")).toEqual(["constructor"]);
		expect(session.learned("constructor")).toEqual([]);
		expect(session.learned("toString")).toEqual([]);
	});
});
