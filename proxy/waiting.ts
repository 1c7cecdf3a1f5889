// How an answer waits for the servers it needs: a search, list, describe or call whose answer
// depends on a server whose tools are not known yet waits for that server's connect, which ends by
// itself (its install budget, then its connect deadline), telling the user why once a second
// ("waiting for memory: installing @modelcontextprotocol/server-memory with npm, 12 s"). The
// turn's signal ends the wait. The model is never sent back to ask again for a server that is
// merely installing or starting.
import type { Servers } from "../lifecycle.ts";
import type { ProxyRunOptions } from "./answer.ts";
import { startingText } from "./server-status.ts";

/** Waits until every server in `names` has its tools listed or has failed, or the signal aborts. */
export async function waitForServers(
	lifecycle: Servers,
	names: readonly string[],
	options: Pick<ProxyRunOptions, "signal" | "onWait">,
): Promise<void> {
	if (names.length === 0) return;
	const tell = () => {
		const still = names.filter((n) => !lifecycle.catalog.has(n) && lifecycle.starting(n));
		if (still.length > 0)
			options.onWait?.(`waiting for ${still.map((n) => `${n}: ${startingText(lifecycle, n)}`).join("; ")}`);
	};
	const ticker = setInterval(tell, 1000);
	try {
		const work = lifecycle.ensureMetadata(names, undefined, options.signal);
		tell();
		await work;
	} finally {
		clearInterval(ticker);
	}
}
