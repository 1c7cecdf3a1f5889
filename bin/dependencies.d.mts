// Types of bin/dependencies.mjs (plain JavaScript, so the shell command can run it before any loader).
export declare const PACKAGE_ROOT: string;
export declare function missingDependencies(root?: string): string[];
export declare function missingDependenciesLine(
	missing: readonly string[],
	options?: { root?: string; meanwhile?: string },
): string;
