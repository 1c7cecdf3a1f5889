// What must happen however the process ends: no server outlives Pi, no temp file is left. An
// `exit` hook covers every exit that runs JavaScript (Pi's own, process.exit, an uncaught error).
// Ctrl-C in `pi -p` (SIGINT) does not: Pi handles SIGTERM and SIGHUP there, and Node's default
// for SIGINT ends the process at once, hooks unrun, while servers in their own process groups keep
// running. So this listens for SIGINT: it cleans up, steps aside, and sends the signal again, so
// that whatever else listens (Pi, or signal-exit under proper-lockfile, which stays passive while
// another listener exists) or Node's default (exit status 130) decides as it would without us.

const cleanups = new Set<() => void>();

function runAll(): void {
	for (const cleanup of cleanups) {
		try {
			cleanup();
		} catch {
			// one failed cleanup must not keep the others from running at exit
		}
	}
}

function onInterrupt(): void {
	runAll();
	cleanups.clear();
	stop();
	process.kill(process.pid, "SIGINT");
}

function stop(): void {
	process.off("exit", runAll);
	process.off("SIGINT", onInterrupt);
}

/** Runs `cleanup` (synchronous) at any exit, Ctrl-C included; returns what unregisters it. */
export function atExit(cleanup: () => void): () => void {
	if (cleanups.size === 0) {
		process.on("exit", runAll);
		process.on("SIGINT", onInterrupt);
	}
	cleanups.add(cleanup);
	return () => {
		cleanups.delete(cleanup);
		if (cleanups.size === 0) stop();
	};
}
