/** Builds every package whose dist is missing or older than its sources; returns the names built. */
export function ensureDist(options?: { log?: (line: string) => void }): Promise<string[]>;
/** True when a package's dist is missing an entry point or older than any of its sources. */
export function isStale(name: "sdk" | "harness" | "node"): boolean;
/** Runs rollup.config.mjs for the named packages (JavaScript only with `jsOnly`). */
export function rollupBuild(names: string[], options?: { jsOnly?: boolean }): Promise<void>;
