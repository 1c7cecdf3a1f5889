// Once per `npm test`: make sure Pi 1.5.2 and 1.6.0 are installed for the tests that run every Pi line.
import { ensurePi1Lines } from "./pi-hosts.ts";

export default function setup(): void {
	ensurePi1Lines();
}
