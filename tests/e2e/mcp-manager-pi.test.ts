// The /mcp manager over rpc dialogs on both Pi lines (the real `pi --mode rpc`): the server list
// with states and a failure's reason, a server connected from its menu, a tool's exposure changed
// (saved as "toolExposure" in the user's file, its comment and tabs kept), the server turned off
// for this project (an override in .pi/mcp.json), and the files checked after.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { everythingStdio } from "../support/helpers.ts";
import { createPiHome, type PiHome, type PiRpc, type RpcEvent, startPiRpc } from "../support/pi-cli-harness.ts";
import { PI_HOSTS } from "../support/pi-hosts.ts";

const select = (e: RpcEvent) => e.type === "extension_ui_request" && e.method === "select";
const notify = (e: RpcEvent) => e.type === "extension_ui_request" && e.method === "notify";
const status = (e: RpcEvent) => e.type === "extension_ui_request" && e.method === "setStatus" && e.statusKey === "mcp";

describe.each(PI_HOSTS)("the /mcp manager over rpc ($name)", (host) => {
	let pi: PiRpc | undefined;
	let home: PiHome | undefined;
	afterEach(async () => {
		await pi?.close();
		await home?.dispose();
		pi = undefined;
	});

	it("lists servers, connects one, changes a tool's exposure and turns the server off for the project", async () => {
		const servers = {
			everything: everythingStdio(),
			broken: {
				command: process.execPath,
				args: ["-e", "console.error('no API key set'); process.exit(2)"],
				lifecycle: "eager",
			},
		};
		const text = `{\n\t// the user's own note\n\t"mcpServers": ${JSON.stringify(servers, null, "\t").replace(/\n/g, "\n\t")}\n}\n`;
		home = await createPiHome({ agentFiles: { "mcp.json": text } });
		// Pi 1.5 reads a project's .pi/mcp.json only in a trusted project (--approve trusts it).
		pi = await startPiRpc({ home, host, extraArgs: host.pi1 ? ["--approve"] : [] });
		const rpc = pi;
		await rpc.waitFor((e) => status(e) && /1 failed/.test(String(e.statusText)));

		let at = 0;
		/** The next menu after `at`, answered with the option that starts with `choice`. */
		const answer = async (choice: string | RegExp): Promise<RpcEvent> => {
			const dialog = await rpc.waitFor(select, at);
			at = rpc.events.indexOf(dialog) + 1;
			const option = (dialog.options as string[]).find((o) =>
				typeof choice === "string" ? o.startsWith(choice) : choice.test(o),
			);
			if (!option) throw new Error(`no option "${choice}" in ${JSON.stringify(dialog.options)}`);
			rpc.send({ type: "extension_ui_response", id: dialog.id, value: option });
			return dialog;
		};
		const told = async () => String((await rpc.waitFor(notify, at, 30_000)).message);

		at = rpc.events.length;
		rpc.send({ id: "manager", type: "prompt", message: "/mcp" });
		const list = await answer("everything —");
		expect(String(list.title)).toMatch(/^MCP servers \([01]\/2 connected\)/);
		const rows = list.options as string[];
		// Servers that need the user come first, with the reason they failed.
		expect(rows[0]).toMatch(/^broken — failed: .*\(the server said: no API key set\) · codemode · /);
		// everything lists its tools once, at the first start (whether that is done yet is a race).
		expect(rows[1]).toMatch(/^everything — (starting|connected|not running).* · codemode · ~\/agent\/mcp\.json$/);
		expect(rows.at(-1)).toBe("Close");

		const menu = await answer(/^(Connect now|Reconnect)$/);
		expect(menu.options).toEqual(
			expect.arrayContaining([
				expect.stringMatching(/^Exposure: codemode \(saved to .*agent\/mcp\.json\)$/),
				expect.stringMatching(/^Disable \(saved to /),
				expect.stringMatching(/^Disable in this project \(saved to .*\.pi\/mcp\.json\)$/),
				"Back",
			]),
		);
		expect(await told()).toMatch(/^everything: reconnected, \d+ tools/);
		await answer("Tools (");
		const tools = await answer("echo [codemode]");
		// What the exposure does in this Pi: pi 0.73 has no codemode scripts (nor searchTools()): feature-tested.
		if (host.name === "pi-0.73") {
			expect(String(tools.title)).toContain(
				"Exposure codemode: found and called through the mcp tool (this Pi has no codemode scripts)",
			);
		} else
			expect(String(tools.title)).toMatch(
				/Exposure codemode: (called from codemode scripts|found and called through the mcp tool \(this Pi has no codemode scripts\))/,
			);
		const exposures = await answer("  direct:");
		if (host.name === "pi-0.73")
			expect(JSON.stringify(exposures.options)).not.toMatch(/searchTools\(\)|tool_search loads/);
		expect(await told()).toBe(
			`Tool echo of "everything" is now direct (saved in ${join(home.agentDir, "mcp.json")}). MCP reloaded its config.`,
		);
		const again = await answer("Back");
		expect(again.options).toContain("echo [direct] (toolExposure)");
		await answer("Disable in this project");
		const project = join(home.cwd, ".pi", "mcp.json");
		expect(await told()).toBe(
			`Turned "everything" off in this project (saved in ${project}). MCP reloaded its config.`,
		);
		const off = await answer("Back");
		// Files as Pi 1.5's /mcp names them: the home folder (the test's) as ~.
		expect(String(off.title)).toContain('turned off ("enabled": false in ~/work/.pi/mcp.json)');
		const after = await answer("Close");
		expect(after.options).toContain("everything — turned off · ~/work/.pi/mcp.json");

		const user = readFileSync(join(home.agentDir, "mcp.json"), "utf8");
		expect(user).toContain("\t// the user's own note\n");
		// On a line of its own, at its neighbours' indentation (config/edit.ts writes in the file's style).
		expect(user).toMatch(/\n\t\t\t"toolExposure": /);
		const parsed = JSON.parse(user.replace("\t// the user's own note\n", ""));
		expect(parsed.mcpServers.everything.toolExposure).toEqual({ echo: "direct" });
		expect(JSON.parse(readFileSync(project, "utf8"))).toEqual({ mcpServers: { everything: { enabled: false } } });
	});
});
