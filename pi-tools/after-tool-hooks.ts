// Work a `tool_call` hook must not do before every other extension's `tool_call` hook has let the
// call through: a skill's files are fetched from their server only then (a permission hook that
// blocks the call leaves the server knowing nothing of it). Pi runs the hooks in extension load
// order, stops at the first block, offers no way to run last, and awaits nothing of ours between
// the last hook and the tool. What it does (ExtensionRunner.emitToolCall, alike in pi 0.73, Pi 1.5
// and 1.6): it reads a hook's answer's `block` as soon as the hook answers, keeps the last truthy
// answer, and returns it from an async function once every hook has run without a block; and the
// language resolves a promise with an object that has a `then` method by calling it. So the answer
// gets its `then` when Pi first reads its `block`: still the answer when the last hook has run,
// its `then` is called there, and Pi awaits the work's verdict before the tool runs. A later hook
// that blocks (or answers with an object of its own) leaves `then` uncalled: the work never runs.
import { once } from "../bounds/waits.ts";

/** A tool_call hook's block, as Pi reads it. */
export interface ToolCallBlock {
	readonly block: true;
	readonly reason: string;
}

/** The answer the hook returns: no block of its own; `work` runs, and decides, after every other hook. */
export function afterOtherHooks(work: () => Promise<ToolCallBlock | undefined>): { readonly block: boolean } {
	const verdict = once(work);
	const then = (resolve: (value: ToolCallBlock | undefined) => void, reject: (error: unknown) => void) =>
		void verdict().then(resolve, reject);
	const answer = {};
	Object.defineProperty(answer, "block", {
		enumerable: true,
		get() {
			// Not a thenable before this: the hook's own async return must hand Pi the answer itself.
			// biome-ignore lint/suspicious/noThenProperty: the thenable is the point (see the top of this file)
			if (!Object.hasOwn(answer, "then")) Object.defineProperty(answer, "then", { value: then });
			return false;
		},
	});
	return answer as { readonly block: boolean };
}
