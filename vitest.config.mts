// Test tiers: `unit` runs no child process (seconds); `e2e` runs real servers and the real Pi.
import { defineConfig } from "vitest/config";

export default defineConfig({
	test: {
		testTimeout: 60_000,
		hookTimeout: 60_000,
		// Real server processes and the real Pi: two workers fit the 2-core CI machine.
		maxWorkers: 2,
		projects: [
			// The unit tier shares one module graph per worker (isolate: false): re-importing the SDK,
			// TypeScript and the tokenizer for each of 65 files was most of its time (CPU 67 s -> 26 s).
			// Safe because no unit test mocks a module, and each restores what it changes (env, cwd,
			// spies, fake timers): the tier passes with its files shuffled in a single worker.
			{ extends: true, test: { name: "unit", include: ["tests/unit/**/*.test.ts"], isolate: false } },
			{
				extends: true,
				test: { name: "e2e", include: ["tests/e2e/**/*.test.ts"], globalSetup: ["tests/support/global-setup.ts"] },
			},
		],
	},
});
