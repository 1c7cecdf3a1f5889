import { defineConfig } from "vitest/config";

export default defineConfig({
	test: {
		include: ["tests/**/*.test.ts"],
		globalSetup: ["tests/global-setup.ts"],
		testTimeout: 60_000,
		hookTimeout: 60_000,
		// Real server processes and the real Pi: two workers fit the 2-core CI machine.
		maxWorkers: 2,
	},
});
