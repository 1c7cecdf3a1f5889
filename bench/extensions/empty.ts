// The start-up bench's floor for any extension: Pi loading one (through jiti) that does nothing.
export default function emptyExtension(): void {}
