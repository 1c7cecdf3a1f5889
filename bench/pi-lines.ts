// The Pi lines the benchmarks measure: pi 0.73, and each Pi 1.x line beside its own built-in MCP.
import { PI_15, PI_073, type PiHost } from "../tests/support/pi-hosts.ts";

/** The Pi 1.x lines (Pi 1.6: add its host from tests/support/pi-hosts.ts). */
export const PI1_LINES: readonly PiHost[] = [PI_15];

/** Every line a start-up or session bench runs on. */
export const ALL_LINES: readonly PiHost[] = [PI_073, ...PI1_LINES];

/** Pi 1.x: a tool registry of MCP tools, built-in extensions; pi 0.73 has neither. */
export const isPi1 = (host: PiHost): boolean => PI1_LINES.includes(host);

/** "Pi 1.5" for the host named "pi-1.5". */
export const lineName = (host: PiHost): string => host.name.replace(/^pi-/, "Pi ");
