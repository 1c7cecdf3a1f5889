// "Did you mean ...?": the known names closest to what was typed (a tool name from the model, a
// key in a config file). Bounded for any input: a megabyte typed is compared with nothing.

/** Tool names are at most 64 characters: an input over twice that is not a near miss (and edit distance is quadratic). */
const MAX_COMPARED_LENGTH = 64;

/** Up to `max` names closest to `input`: containment first, then edit distance. Bounded for any input size. */
export function closestNames(input: string, names: readonly string[], max = 3): string[] {
	if (input.length > MAX_COMPARED_LENGTH * 2) return []; // a megabyte of "name" resembles nothing
	const needle = input.toLowerCase();
	const scored = names.map((name) => {
		const lower = name.toLowerCase();
		const contains = lower.includes(needle) || needle.includes(lower);
		return { name, score: (contains ? 0 : 100) + editDistance(needle, lower) };
	});
	const limit = Math.max(3, Math.ceil(needle.length * 0.6));
	return scored
		.filter((s) => s.score < 100 || s.score - 100 <= limit)
		.sort((a, b) => a.score - b.score || a.name.localeCompare(b.name))
		.slice(0, max)
		.map((s) => s.name);
}

export function editDistance(a: string, b: string): number {
	let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
	for (let i = 1; i <= a.length; i++) {
		const cur = [i];
		for (let j = 1; j <= b.length; j++) {
			cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
		}
		prev = cur;
	}
	return prev[b.length];
}
