// Servers' `notifications/message` logs, appended to <agentDir>/mcp.log in Pi 1.5's own format
// (`<time> [<server>] <level> <logger>: <message>`), rotated to mcp.log.1 past 5 MB. Never shown
// to the model. Several Pi processes may write the file, so each message is one synchronous
// append; secrets are scrubbed first. Writing is best effort: a log must never break a call.
import { appendFileSync, mkdirSync, renameSync, statSync } from "node:fs";
import { dirname, join } from "node:path";

export const LOG_FILE = "mcp.log";
export const MAX_LOG_BYTES = 5 * 1024 * 1024;

export function formatLogLine(server: string, params: unknown, now = new Date()): string {
	const message =
		typeof params === "object" && params !== null && !Array.isArray(params)
			? (params as Record<string, unknown>)
			: { data: params };
	const level = typeof message.level === "string" ? message.level : "info";
	const logger = typeof message.logger === "string" && message.logger ? ` ${message.logger}:` : "";
	const text = dataText(message.data).replace(/\r?\n/g, "\n    ");
	return `${now.toISOString()} [${server}] ${level}${logger} ${text}\n`;
}

function dataText(data: unknown): string {
	if (typeof data === "string") return data;
	try {
		return JSON.stringify(data) ?? String(data);
	} catch {
		return String(data);
	}
}

export class ServerLog {
	readonly path: string;
	private size?: number;

	constructor(
		agentDir: string,
		private readonly scrub: (text: string) => string = (t) => t,
	) {
		this.path = join(agentDir, LOG_FILE);
	}

	write(server: string, params: unknown): void {
		const line = this.scrub(formatLogLine(server, params));
		try {
			if (this.size === undefined) {
				mkdirSync(dirname(this.path), { recursive: true });
				this.size = this.currentSize();
			}
			if (this.size > MAX_LOG_BYTES) {
				// Another process may have rotated it already.
				if (this.currentSize() > MAX_LOG_BYTES) renameSync(this.path, `${this.path}.1`);
				this.size = this.currentSize();
			}
			appendFileSync(this.path, line, { mode: 0o600 });
			this.size += Buffer.byteLength(line);
		} catch {
			// best effort
		}
	}

	private currentSize(): number {
		try {
			return statSync(this.path).size;
		} catch {
			return 0;
		}
	}
}
