import { fileURLToPath } from "node:url";

/** The test kit's process probe, under the names these tests use. */
export { processAlive as isAlive, waitUntilGone } from "@antigravity-ts/test-kit";

/** Absolute path of a fake harness script in this folder. */
export function fakePath(name: string): string {
  return fileURLToPath(new URL(`./${name}`, import.meta.url));
}
