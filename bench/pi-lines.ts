// The Pi lines the benchmarks measure: pi 0.73, and each Pi 1.x line beside its own built-in MCP.
import { PI_073, PI1_HOSTS, type PiHost } from "../tests/support/pi-hosts.ts";

/** The Pi 1.x lines (1.5.2 and 1.6.0: tests/support/pi-hosts.ts). */
export const PI1_LINES: readonly PiHost[] = PI1_HOSTS;

/** Every line a start-up or session bench runs on. */
export const ALL_LINES: readonly PiHost[] = [PI_073, ...PI1_LINES];

/** "Pi 1.5" for the host named "pi-1.5". */
export const lineName = (host: PiHost): string => host.name.replace(/^pi-/, "Pi ");
