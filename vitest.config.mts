// Test tiers: `unit` runs no child process (seconds); `e2e` runs real servers and the real Pi.
import { defineConfig } from "vitest/config";

export default defineConfig({
	test: {
		testTimeout: 60_000,
		hookTimeout: 60_000,
		// Real server processes and the real Pi: two workers fit the 2-core CI machine.
		maxWorkers: 2,
		projects: [
			{ extends: true, test: { name: "unit", include: ["tests/unit/**/*.test.ts"] } },
			{
				extends: true,
				test: { name: "e2e", include: ["tests/e2e/**/*.test.ts"], globalSetup: ["tests/support/global-setup.ts"] },
			},
		],
	},
});
