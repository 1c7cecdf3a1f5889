// Once per `npm test`: make sure Pi 1.5.2 is installed for the tests that run both Pi lines.
import { ensurePi15 } from "./pi-hosts.ts";

export default function setup(): void {
	ensurePi15();
}
