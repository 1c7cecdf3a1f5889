// For the bench of Pi 1.5's tool_search (bench/pi-tool-search.ts): after each tool_search call, the
// tools it loaded are unloaded again, so every query of a run searches the same tools (Pi's
// tool_search leaves out tools already loaded). The answer the model got is not touched.
interface Api {
	getActiveTools(): string[];
	setActiveTools(names: string[]): void;
	on(event: "tool_result", handler: (event: { toolName: string; details?: unknown }) => void): void;
}

export default function unloadSearched(pi: Api): void {
	pi.on("tool_result", (event) => {
		if (event.toolName !== "tool_search") return;
		const loaded = (event.details as { loaded?: string[] } | undefined)?.loaded ?? [];
		if (loaded.length > 0) pi.setActiveTools(pi.getActiveTools().filter((name) => !loaded.includes(name)));
	});
}
