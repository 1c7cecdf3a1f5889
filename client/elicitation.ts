// Answering a server's `elicitation/create` with Pi's own dialogs. Form mode asks one field at a
// time, as its schema says (text, number, yes/no, one of a list, several of a list; required,
// defaults, limits, formats), then shows what will be sent: "Send" sends it, "Don't send" (what
// Enter picks) declines, Esc at any point cancels. Every question comes in pages that fit the
// screen (client/paged-question.ts). Fields left empty are omitted so the SDK applies the schema's defaults (the
// client declares `applyDefaults`). URL mode shows the page and offers to open it.
import type { ElicitRequestFormParams, ElicitRequestURLParams, ElicitResult } from "@modelcontextprotocol/client";
import { askPaged } from "./paged-question.ts";
import { type Dialogs, plain } from "./user-dialogs.ts";

type Value = string | number | boolean | string[];

/** A property of the requested schema: the spec allows only flat primitives and enums. */
interface Field {
	readonly name: string;
	readonly type?: string;
	readonly title?: string;
	readonly description?: string;
	readonly default?: unknown;
	readonly enum?: readonly unknown[];
	readonly enumNames?: readonly unknown[];
	readonly oneOf?: readonly { const?: unknown; title?: unknown }[];
	readonly items?: { enum?: readonly unknown[]; anyOf?: readonly { const?: unknown; title?: unknown }[] };
	readonly minimum?: number;
	readonly maximum?: number;
	readonly minLength?: number;
	readonly maxLength?: number;
	readonly minItems?: number;
	readonly maxItems?: number;
	readonly format?: string;
}

/** More fields than anyone answers one by one: such a request is declined, with a word to the user. */
const MAX_FIELDS = 30;
const SKIP = "(leave empty)";
const DONE = "Done";
const SEND = "Send";
const DONT_SEND = "Don't send";

/** Thrown inside the walk through the fields when the user presses Esc. */
class Cancelled extends Error {}

export async function askForm(
	dialogs: Dialogs,
	server: string,
	params: ElicitRequestFormParams,
	signal: AbortSignal,
): Promise<ElicitResult> {
	const properties = Object.entries(params.requestedSchema.properties ?? {});
	if (properties.length > MAX_FIELDS) {
		dialogs.notify(
			`MCP server "${server}" asked for ${properties.length} answers at once; Pi declined (at most ${MAX_FIELDS}).`,
			"warning",
		);
		return { action: "decline" };
	}
	const required = new Set(params.requestedSchema.required ?? []);
	const header = `MCP server "${server}" asks: ${plain(params.message, 500)}`;
	const content: Record<string, Value> = {};
	try {
		for (const [i, [name, raw]] of properties.entries()) {
			const field = { ...(raw as object), name } as Field;
			const title = `${header}\n(${i + 1}/${properties.length}) ${label(field, required.has(name))}`;
			const value = await askField(dialogs, field, required.has(name), title, signal);
			if (value !== undefined) content[name] = value;
		}
	} catch (error) {
		if (error instanceof Cancelled) return { action: "cancel" };
		throw error;
	}
	const summary = properties
		.map(([name, raw]) => `${name}: ${shown(content[name], { ...(raw as object), name } as Field)}`)
		.join("\n");
	const text = `Send these answers to "${server}"?\n${summary || "(no fields)"}`;
	const send = await askPaged(dialogs, { text, safe: DONT_SEND, choices: [SEND] }, { signal });
	if (send === undefined) return { action: "cancel" };
	return send === SEND ? { action: "accept", content } : { action: "decline" };
}

export async function askUrl(
	dialogs: Dialogs,
	server: string,
	params: ElicitRequestURLParams,
	signal: AbortSignal,
	openBrowser: (url: string) => void,
): Promise<ElicitResult> {
	let url: URL;
	try {
		url = new URL(params.url);
	} catch {
		url = new URL("invalid:");
	}
	if (url.protocol !== "https:" && url.protocol !== "http:") {
		dialogs.notify(
			`MCP server "${server}" asked you to open "${plain(params.url, 200)}", which is not a web address; Pi declined.`,
			"warning",
		);
		return { action: "decline" };
	}
	const open = `Open ${url.host} in the browser`;
	const manual = "I will open it myself";
	const title = `MCP server "${server}" asks you to open a page:\n${plain(params.message, 500)}\n\n${plain(params.url, 2000)}`;
	const choice = await askPaged(dialogs, { text: title, safe: "Decline", choices: [open, manual] }, { signal });
	if (choice === undefined) return { action: "cancel" };
	if (choice === "Decline") return { action: "decline" };
	if (choice === open) openBrowser(url.href);
	return { action: "accept" };
}

function label(field: Field, required: boolean): string {
	const name = plain(field.title ?? field.name, 100);
	const about = field.description ? `: ${plain(field.description, 300)}` : "";
	return `${name}${required ? " (required)" : ""}${about}`;
}

async function askField(
	dialogs: Dialogs,
	field: Field,
	required: boolean,
	title: string,
	signal: AbortSignal,
): Promise<Value | undefined> {
	const choices = choicesOf(field);
	if (field.type === "array") return askMany(dialogs, field, title, signal);
	if (choices) return askOne(dialogs, choices, field, required, title, signal);
	if (field.type === "boolean") {
		return askOne(
			dialogs,
			[
				{ value: true, title: "Yes" },
				{ value: false, title: "No" },
			],
			field,
			required,
			title,
			signal,
		);
	}
	return askText(dialogs, field, required, title, signal);
}

interface Choice {
	readonly value: string | boolean;
	readonly title: string;
}

/** The options of a single-select field: `oneOf` with titles, `enum` with `enumNames` (legacy), or plain `enum`. */
function choicesOf(field: Field): Choice[] | undefined {
	if (Array.isArray(field.oneOf))
		return field.oneOf.map((o) => ({ value: String(o.const), title: plain(String(o.title ?? o.const), 200) }));
	if (!Array.isArray(field.enum)) return undefined;
	return field.enum.map((v, i) => ({ value: String(v), title: plain(String(field.enumNames?.[i] ?? v), 200) }));
}

async function askOne(
	dialogs: Dialogs,
	choices: Choice[],
	field: Field,
	required: boolean,
	title: string,
	signal: AbortSignal,
): Promise<Value | undefined> {
	const shownAs = choices.map((c) => (c.value === field.default ? `${c.title} (default)` : c.title));
	const options = !required && field.default === undefined ? [...shownAs, SKIP] : shownAs;
	const picked = await askPaged(dialogs, { text: title, choices: options }, { signal });
	if (picked === undefined) throw new Cancelled();
	const index = shownAs.indexOf(picked);
	return index < 0 ? undefined : choices[index].value;
}

/** Several of a list: each pick toggles an item, "Done" ends (within minItems/maxItems). */
async function askMany(dialogs: Dialogs, field: Field, title: string, signal: AbortSignal): Promise<Value | undefined> {
	const items =
		field.items?.anyOf?.map((o) => ({ value: String(o.const), title: plain(String(o.title ?? o.const), 200) })) ??
		(field.items?.enum ?? []).map((v) => ({ value: String(v), title: plain(String(v), 200) }));
	const chosen = new Set(Array.isArray(field.default) ? field.default.map(String) : []);
	let problem = "";
	for (;;) {
		const options = [
			...items.map((item) => `${chosen.has(item.value) ? "[x]" : "[ ]"} ${item.title}`),
			`${DONE} (${chosen.size} chosen)`,
		];
		const text = `${title}\nPick to check or uncheck, then ${DONE}.${problem}`;
		const picked = await askPaged(dialogs, { text, choices: options }, { signal });
		if (picked === undefined) throw new Cancelled();
		const index = options.indexOf(picked);
		if (index < items.length) {
			const value = items[index].value;
			if (!chosen.delete(value)) chosen.add(value);
			problem = "";
			continue;
		}
		problem = countProblem(chosen.size, field);
		if (!problem) return items.filter((item) => chosen.has(item.value)).map((item) => item.value);
	}
}

function countProblem(count: number, field: Field): string {
	if (field.minItems !== undefined && count < field.minItems) return `\nChoose at least ${field.minItems}.`;
	if (field.maxItems !== undefined && count > field.maxItems) return `\nChoose at most ${field.maxItems}.`;
	return "";
}

/** Text or a number, asked again (saying why) until it is valid; empty means the default, or nothing. */
async function askText(
	dialogs: Dialogs,
	field: Field,
	required: boolean,
	title: string,
	signal: AbortSignal,
): Promise<Value | undefined> {
	const numeric = field.type === "number" || field.type === "integer";
	const placeholder = field.default !== undefined ? `default: ${plain(String(field.default), 100)}` : hint(field);
	let problem = "";
	for (;;) {
		const answer = await dialogs.input(`${title}${problem}`, placeholder, { signal });
		if (answer === undefined) throw new Cancelled();
		const text = answer.trim();
		if (text === "") {
			if (field.default !== undefined || !required) return undefined;
			problem = "\nThis answer is required.";
			continue;
		}
		const parsed = numeric ? parseNumber(text, field) : checkText(text, field);
		if (typeof parsed === "object") {
			problem = `\n${parsed.problem}`;
			continue;
		}
		return parsed;
	}
}

function hint(field: Field): string {
	if (field.format) return field.format;
	if (field.minimum !== undefined || field.maximum !== undefined)
		return `${field.minimum ?? ""}…${field.maximum ?? ""}`;
	return field.type === "integer" ? "a whole number" : field.type === "number" ? "a number" : "";
}

function parseNumber(text: string, field: Field): number | { problem: string } {
	const value = Number(text);
	if (!Number.isFinite(value)) return { problem: `"${plain(text, 40)}" is not a number.` };
	if (field.type === "integer" && !Number.isInteger(value)) return { problem: "A whole number, please." };
	if (field.minimum !== undefined && value < field.minimum) return { problem: `At least ${field.minimum}.` };
	if (field.maximum !== undefined && value > field.maximum) return { problem: `At most ${field.maximum}.` };
	return value;
}

const FORMATS: Record<string, { test: (text: string) => boolean; what: string }> = {
	email: { test: (t) => /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(t), what: "an email address" },
	uri: { test: (t) => URL.canParse(t), what: "a full address (https://…)" },
	date: { test: (t) => /^\d{4}-\d{2}-\d{2}$/.test(t) && !Number.isNaN(Date.parse(t)), what: "a date as YYYY-MM-DD" },
	"date-time": {
		test: (t) => !Number.isNaN(Date.parse(t)) && /\d{4}-\d{2}-\d{2}T/.test(t),
		what: "a date and time (YYYY-MM-DDThh:mm:ssZ)",
	},
};

function checkText(text: string, field: Field): string | { problem: string } {
	if (field.minLength !== undefined && text.length < field.minLength)
		return { problem: `At least ${field.minLength} characters.` };
	if (field.maxLength !== undefined && text.length > field.maxLength)
		return { problem: `At most ${field.maxLength} characters.` };
	const format = field.format ? FORMATS[field.format] : undefined;
	if (format && !format.test(text)) return { problem: `This should be ${format.what}.` };
	return text;
}

/** How an answer reads in the summary before sending. */
function shown(value: Value | undefined, field: Field): string {
	if (value === undefined)
		return field.default !== undefined ? `(default: ${plain(JSON.stringify(field.default), 100)})` : "(empty)";
	return plain(Array.isArray(value) ? value.join(", ") : String(value), 200);
}
