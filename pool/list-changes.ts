// A server's list_changed notifications (tools, resources, prompts): one listing again 100 ms after
// the first of a burst (one listing covers every change told before it starts), so catalog and
// cache follow. Not pushed back by each one: a server telling changes more often than that would
// never be listed again.
import type { ServerConnection } from "../transport/open-connection.ts";

export const LIST_AGAIN_AFTER_MS = 100;

/** Calls `listAgain` once per burst of list_changed from this connection's server. */
export function watchListChanges(connection: Pick<ServerConnection, "client">, listAgain: () => void): void {
	let timer: ReturnType<typeof setTimeout> | undefined;
	const changed = () => {
		if (timer) return;
		timer = setTimeout(() => {
			timer = undefined;
			listAgain();
		}, LIST_AGAIN_AFTER_MS);
		timer.unref?.();
	};
	connection.client.setNotificationHandler("notifications/tools/list_changed", changed);
	connection.client.setNotificationHandler("notifications/resources/list_changed", changed);
	connection.client.setNotificationHandler("notifications/prompts/list_changed", changed);
}
