// What the client offers servers, for one session: roots (the working folder, any folders the
// user's config adds, and each server's own configured folders: client/roots.ts), elicitation and
// sampling answered through the session's dialogs and model,
// and servers' log messages written to mcp.log. The host (Pi's UI and model) is set by whoever
// runs the session; without a UI, questions are declined at once and the tool result says why.

import { once } from "../bounds/waits.ts";
import type { ClientRequests } from "../transport/open-connection.ts";
import { type Redactor, scrubStrings } from "../trust/redaction.ts";
import { serverRoots, sessionFolders } from "./roots.ts";
import { loadSampling } from "./sampling.lazy.ts";
import type { Sampler, SamplingConsent } from "./sampling.ts";
import { ServerLog } from "./server-log.ts";
import { DialogQueue, type Dialogs, plain } from "./user-dialogs.ts";

/** A server's questions (forms, links): at the first one. */
const loadElicitation = once(() => import("./elicitation.ts"));

export interface ClientHost {
	/** Pi's dialogs when the session has a UI (TUI, rpc); undefined in print and json modes. */
	readonly dialogs?: Dialogs;
	/** The session's current model, for sampling (may load what it needs first). */
	readonly sampler?: () => Sampler | undefined | Promise<Sampler | undefined>;
	readonly openBrowser?: (url: string) => void;
	/** Why no one can be asked, when there are no dialogs (said in the tool result). */
	readonly noUiReason?: string;
}

export interface ClientFeaturesOptions {
	readonly agentDir: string;
	readonly cwd: string;
	/** settings.roots: more folders offered as roots (absolute, `~/`, or relative to cwd). */
	readonly extraRoots?: readonly string[];
	/** Masks known secrets in every log line and in every question a server asks (shown, logged, sent to the model). */
	readonly redactor?: Redactor;
}

const NO_UI = "Pi runs without a UI here (print or json mode): no one can answer";
/** Notes kept per server until a tool result takes them: enough for one call's questions. */
const MAX_NOTES = 5;

export class ClientFeatures {
	host: ClientHost = {};
	readonly log: ServerLog;
	/** The folders offered to every server (the working folder, settings.roots). */
	private folders: string[];
	private readonly options: ClientFeaturesOptions;
	private readonly queue = new DialogQueue();
	/** Made at the first sampling request: sampling and elicitation load only when a server asks. */
	private consent?: SamplingConsent;
	private readonly notes = new Map<string, string[]>();

	constructor(options: ClientFeaturesOptions) {
		this.options = options;
		const redactor = options.redactor;
		this.log = new ServerLog(options.agentDir, redactor ? (t) => redactor.scrub(t) : undefined);
		this.folders = sessionFolders(options.cwd, options.extraRoots ?? []);
	}

	/** The handlers a connection declares and uses. */
	requests(): ClientRequests {
		// A question's texts reach a dialog (rpc events, the screen), a tool result's notes and, for
		// sampling, the model: known secrets are masked first (URLs stay whole: a page to open).
		const masked = <T>(params: T): T => {
			const redactor = this.options.redactor;
			return redactor ? scrubStrings(params, (t) => redactor.scrubSecrets(t)) : params;
		};
		return {
			roots: (entry) => serverRoots(this.folders, entry),
			log: (server, message) => this.log.write(server, message),
			elicit: async (server, asked, signal) => {
				const params = masked(asked);
				const dialogs = this.host.dialogs;
				if (!dialogs) {
					this.note(
						server,
						`"${server}" asked the user: "${plain(params.message, 200)}". ${this.host.noUiReason ?? NO_UI}, so it was declined.`,
					);
					return { action: "decline" };
				}
				const openBrowser = this.host.openBrowser ?? (() => undefined);
				const { askForm, askUrl } = await loadElicitation();
				return this.queue.run(() =>
					params.mode === "url"
						? askUrl(dialogs, server, params, signal, openBrowser)
						: askForm(dialogs, server, params, signal),
				);
			},
			sample: async (server, asked, signal) => {
				const params = masked(asked);
				const dialogs = this.host.dialogs;
				const noUi = this.host.noUiReason ?? NO_UI;
				const { SamplingConsent } = await loadSampling();
				this.consent ??= new SamplingConsent();
				const consent = this.consent;
				return this.queue.run(async () =>
					consent.answer(dialogs, await this.host.sampler?.(), server, params, signal, noUi),
				);
			},
		};
	}

	/** The roots for a new working folder; true when they changed (connected servers are then told). */
	setWorkingFolder(cwd: string): boolean {
		const next = sessionFolders(cwd, this.options.extraRoots ?? []);
		if (JSON.stringify(next) === JSON.stringify(this.folders)) return false;
		this.folders = next;
		return true;
	}

	/** What happened to a server's questions since the last call: for the tool result. */
	takeNotes(server: string): string[] {
		const notes = this.notes.get(server) ?? [];
		this.notes.delete(server);
		return notes;
	}

	private note(server: string, text: string): void {
		const notes = this.notes.get(server) ?? [];
		notes.push(text);
		this.notes.set(server, notes.slice(-MAX_NOTES));
	}
}
