/**
 * Building blocks `@antigravity-ts/node` shares with its sibling `@antigravity-ts/cli`: the
 * registry of child processes killed when this process exits, the bounded stderr tail and the
 * errno reader. They are not the package's API and may change in any release.
 * @module
 */
export { registerChild, unregisterChild, liveChildCount } from "./subprocess/child-registry.js";
export { StderrTail } from "./subprocess/stderr-tail.js";
export { errnoCode, mapProgramSpawnError } from "./subprocess/spawn-errors.js";
