// A FIFO where a config should be (made with mkfifo, a child process) is refused at once.
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { afterEach, beforeEach, expect, it } from "vitest";
import { readTextFile } from "../../storage/file-guard.ts";
import { tempDir } from "../support/helpers.ts";

let dir: ReturnType<typeof tempDir>;
beforeEach(() => {
	dir = tempDir();
});
afterEach(() => dir.remove());

it("a FIFO is refused without waiting for a writer", async () => {
	const path = join(dir.path, "fifo");
	execFileSync("mkfifo", [path]);
	expect(readTextFile(path)).toEqual({ kind: "error", message: expect.stringMatching(/not a regular file/) });
});
