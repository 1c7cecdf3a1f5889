// `/mcp` with no arguments where Pi has dialogs (the TUI, rpc; both Pi lines): a manager like Pi
// 1.5's own, through `ctx.ui.select`, so it works wherever a select dialog does. The servers, then
// one server's actions: its tools and their exposure (per tool too), reconnect, approve or deny a
// project's server, sign in and out, exposure, sharing, disable for the user or the project, enable.
// Changes are saved as Pi 1.5 saves them (config/server-settings.ts, config/edit.ts) and the
// config is applied again; the other actions are /mcp's subcommands (pi-commands/command-actions.ts).
import type { ExtensionCommandContext } from "@mariozechner/pi-coding-agent";
import { type Dialogs, safeDialogs } from "../client/user-dialogs.ts";
import {
	type SettingsFile,
	saveEnabled,
	saveExposure,
	saveShare,
	saveToolExposure,
	settingsFile,
} from "../config/server-settings.ts";
import { describeError } from "../errors.ts";
import type { McpRuntime } from "../mcp-runtime.ts";
import { type Exposure, exposureOf } from "../types.ts";
import { approve, authCommand, deny, reconnect, turnOnOff } from "./command-actions.ts";
import { type CommandDeps, say } from "./command-io.ts";
import {
	exposureMenu,
	files,
	type Menu,
	serverExposure,
	serverMenu,
	serversMenu,
	shared,
	toolsMenu,
} from "./manager-menus.ts";

/** One manager: the dialogs it asks through and what it needs of the session. */
interface Manager {
	readonly ctx: ExtensionCommandContext;
	readonly deps: CommandDeps;
	readonly dialogs: Dialogs;
}

/** Opens the manager; returns when the user closes it (Esc or "Close"). */
export async function openManager(ctx: ExtensionCommandContext, deps: CommandDeps): Promise<void> {
	const manager: Manager = { ctx, deps, dialogs: safeDialogs(ctx.ui) };
	for (;;) {
		const runtime = await deps.runtime();
		if (!runtime) return;
		const name = await ask(manager, runtime, serversMenu(runtime));
		if (name === undefined || name === "close") return;
		await manageServer(manager, name);
	}
}

/** One server's menu, shown again after each action (with what the action changed) until Back. */
async function manageServer(manager: Manager, name: string): Promise<void> {
	for (;;) {
		const runtime = await manager.deps.runtime();
		if (!runtime) return;
		const action = await ask(
			manager,
			runtime,
			serverMenu(runtime, name, runtime.readsProjectFile, manager.deps.skills),
		);
		if (action === undefined || action === "back") return;
		await act(manager, runtime, name, action);
	}
}

async function act(manager: Manager, runtime: McpRuntime, name: string, action: string): Promise<void> {
	const { ctx, deps } = manager;
	switch (action) {
		case "tools":
			return manageTools(manager, name);
		case "reconnect":
			return say(ctx, runtime, await reconnect(runtime.lifecycle, name));
		case "approve": {
			const answer = await approve(ctx, runtime, [name]);
			say(ctx, runtime, answer.text, answer.level);
			return deps.decided?.(runtime);
		}
		case "deny":
			say(ctx, runtime, await deny(runtime, name));
			return deps.decided?.(runtime);
		case "login":
		case "logout":
			return authCommand(ctx, runtime, name, action);
		case "enable":
			return turnOnOff(ctx, runtime, "enable", name, deps);
		case "disable": {
			const where = whereSaved(runtime, name);
			// Pi 1.5: a server the project overrides is turned off in that override.
			if (typeof where !== "string" && where.override)
				return saved(manager, runtime, () => saveEnabled(where.file, name, false), `Turned "${name}" off`, where.file);
			return turnOnOff(ctx, runtime, "disable", name, deps);
		}
		case "disable-project": {
			const file = files(runtime).project;
			return saved(
				manager,
				runtime,
				() => saveEnabled(file, name, false),
				`Turned "${name}" off in this project`,
				file,
			);
		}
		case "exposure":
			return chooseServerExposure(manager, runtime, name);
		case "share": {
			const where = whereSaved(runtime, name);
			const entry = runtime.config.servers.get(name);
			if (typeof where === "string" || !entry) return say(ctx, runtime, String(where), "warning");
			const on = !shared(runtime, entry);
			const done = `Sharing ${on ? "on" : "off"} for "${name}" (${on ? "the per-user broker runs it" : "this session runs it"})`;
			return saved(manager, runtime, () => saveShare(where.file, name, on), done, where.file);
		}
	}
}

async function chooseServerExposure(manager: Manager, runtime: McpRuntime, name: string): Promise<void> {
	const where = whereSaved(runtime, name);
	if (typeof where === "string") return say(manager.ctx, runtime, where, "warning");
	const current = serverExposure(runtime.config.servers.get(name));
	const choice = await ask(
		manager,
		runtime,
		exposureMenu(`Exposure of ${name}\nSaved to ${where.file}.`, current, reach(manager)),
	);
	if (!isExposure(choice) || choice === current) return;
	const done = `Exposure of "${name}" is now ${choice}`;
	await saved(manager, runtime, () => saveExposure(where, name, choice), done, where.file);
}

/** The tools with their exposure; one chosen gets its own (`toolExposure`), or follows the server again. */
async function manageTools(manager: Manager, name: string): Promise<void> {
	for (;;) {
		const runtime = await manager.deps.runtime();
		if (!runtime) return;
		const tool = await ask(manager, runtime, toolsMenu(runtime, name, reach(manager)));
		if (tool === undefined || tool === "back") return;
		const where = whereSaved(runtime, name);
		if (typeof where === "string") {
			say(manager.ctx, runtime, where, "warning");
			continue;
		}
		const entry = runtime.config.servers.get(name);
		const current = exposureOf(entry?.exposure, tool) ?? "codemode";
		const title = `Exposure of ${name}'s tool ${tool}\nSaved to ${where.file} as "toolExposure".`;
		const choice = await ask(manager, runtime, exposureMenu(title, current, reach(manager), serverExposure(entry)));
		if (choice !== "server" && (!isExposure(choice) || choice === current)) continue;
		const exposure = choice === "server" ? undefined : choice;
		const done = `Tool ${tool} of "${name}" is now ${exposure ?? `as its server (${serverExposure(entry)})`}`;
		await saved(manager, runtime, () => saveToolExposure(where, name, tool, exposure), done, where.file);
	}
}

function whereSaved(runtime: McpRuntime, name: string): SettingsFile | string {
	const entry = runtime.config.servers.get(name);
	return entry ? settingsFile(entry, files(runtime)) : runtime.lifecycle.unknownServer(name);
}

/** Saves a change, applies the config again (the other servers keep running), and says so. */
async function saved(
	manager: Manager,
	runtime: McpRuntime,
	change: () => Promise<void>,
	done: string,
	file: string,
): Promise<void> {
	try {
		await change();
	} catch (error) {
		return say(manager.ctx, runtime, describeError(error), "warning");
	}
	await manager.deps.reload?.(manager.ctx);
	say(manager.ctx, runtime, `${done} (saved in ${file}). MCP reloaded its config.`);
}

/** Asks a menu; the chosen item's value, or undefined when the dialog was closed. */
async function ask(manager: Manager, runtime: McpRuntime, menu: Menu): Promise<string | undefined> {
	const labels = menu.items.map((item) => item.label);
	// The title names commands and URLs from the config: masked like every command answer.
	const picked = await manager.dialogs.select(runtime.redactor.scrub(menu.title), labels, {
		signal: manager.ctx.signal,
	});
	return menu.items.find((item) => item.label === picked)?.value;
}

/** The Pi tools that reach MCP tools in this Pi (none on pi 0.73: its exposures all go through `mcp`). */
function reach(manager: Manager): readonly string[] {
	return manager.deps.discoveryTools?.() ?? [];
}

function isExposure(value: string | undefined): value is Exposure {
	return value === "codemode" || value === "deferred" || value === "direct" || value === "hidden";
}
