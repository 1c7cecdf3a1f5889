// The MCP SDK writes some warnings to the console itself, and they carry what a server sent: a
// tool's name and its header names (SEP-2243's "excluding tool ..."), an OAuth server's error text,
// a schema's `format` (from the ajv it bundles). A hostile server put OSC 52 (the clipboard) and
// OSC 0 (the window title) there, and they reached the terminal. The SDK has no logger option, and
// a console swapped only around SDK calls would also catch whatever else prints while such a call
// awaits. So the console is wrapped once per process: a message whose caller is one of the SDK's
// files is written cleaned of terminal sequences and invisible characters (`terminalSafe`); every
// other caller's message passes as it was.
import { format } from "node:util";
import { terminalSafe } from "./safe-text.ts";

const METHODS = ["log", "info", "warn", "error", "debug", "trace"] as const;
/** On the console once wrapped: a second copy of this module (Pi and the CLI load it apart) does not wrap again. */
const WRAPPED = Symbol.for("pi-mcp-proxy.sdk-console");
/** The SDK's files (client and core, the ajv bundled in them), as V8 names them before any source map. */
const SDK_FILE = /[\\/]@modelcontextprotocol[\\/]/;
/** How many callers are looked at: the SDK's own, or another wrapper's between it and this one. */
const FRAMES = 3;

/** Wraps `target`'s methods so that what the MCP SDK prints through them is cleaned first. */
export function guardSdkConsole(target: Console = console): void {
	const marked = target as Console & { [WRAPPED]?: true };
	if (marked[WRAPPED]) return;
	marked[WRAPPED] = true;
	for (const method of METHODS) {
		const original = target[method];
		const wrapper = (...args: unknown[]): void => {
			if (calledFromSdk(wrapper)) original.call(target, terminalSafe(format(...args)));
			else original.apply(target, args);
		};
		target[method] = wrapper;
	}
}

/**
 * Whether one of the callers of `wrapper` is a file of the SDK. The frames are V8's own (a custom
 * prepareStackTrace, set and restored at once): a source map would name the bundled ajv's original
 * path, outside the SDK's folder.
 */
function calledFromSdk(wrapper: (...args: unknown[]) => void): boolean {
	const { prepareStackTrace, stackTraceLimit } = Error;
	const holder: { stack?: NodeJS.CallSite[] } = {};
	try {
		Error.prepareStackTrace = (_error, frames) => frames;
		Error.stackTraceLimit = FRAMES;
		Error.captureStackTrace(holder, wrapper);
		return (holder.stack ?? []).some((frame) => SDK_FILE.test(frame.getFileName() ?? ""));
	} finally {
		Error.prepareStackTrace = prepareStackTrace;
		Error.stackTraceLimit = stackTraceLimit;
	}
}
