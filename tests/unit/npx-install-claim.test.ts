// Whether an npx install marker's pid is still the worker that wrote it (issue 35: a stale marker
// naming a live pid held every start). Where a command line can be read it must name the marker;
// where none can (Windows), the live pid is believed for a bounded time only.
import { describe, expect, it } from "vitest";
import { runsInstaller } from "../../transport/npx-install.ts";
import { DEFAULT_SETTINGS } from "../../types.ts";

const MARKER = "/cache/_npx/0123456789abcdef.pi-mcp-install";

describe("an npx install marker's pid", () => {
	it("is the worker when its command line names the marker, and not when another process has the pid", () => {
		const now = Date.now();
		expect(runsInstaller(process.pid, MARKER, now, () => `node\0-e\0...\0${MARKER}\0`)).toBe(true);
		expect(runsInstaller(process.pid, MARKER, now, () => "vim\0notes.txt\0")).toBe(false);
	});

	it("where no command line can be read, is believed for a while after the marker was made, then no longer", () => {
		const unreadable = () => undefined;
		expect(runsInstaller(process.pid, MARKER, Date.now(), unreadable)).toBe(true);
		const made = Date.now() - 2 * DEFAULT_SETTINGS.installTimeoutMs - 1000;
		expect(runsInstaller(process.pid, MARKER, made, unreadable)).toBe(false);
	});

	it("is no worker when it is not a live process", () => {
		expect(runsInstaller(0, MARKER, Date.now(), () => MARKER)).toBe(false);
		expect(runsInstaller(Number.NaN, MARKER, Date.now(), () => MARKER)).toBe(false);
	});
});
