import { existsSync, mkdirSync, rmdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { isStale, rollupBuild } from "../../../scripts/ensure-dist.mjs";

/** Root of the repository (this file is packages/node/src/subprocess/testing/). */
export const REPO_ROOT = fileURLToPath(new URL("../../../../../", import.meta.url));
/** The reference harness entry that `@antigravity-ts/harness`'s bin points to. */
export const REFERENCE_HARNESS_BIN = join(REPO_ROOT, "packages", "harness", "dist", "bin.js");

const BUILD_TIMEOUT_MS = 240_000;

/**
 * Builds the reference harness (`BUILD_ONLY=sdk,harness rollup`) when its dist is missing or
 * older than its sources, and returns the path of `dist/bin.js`. Test files running in
 * parallel share one build through a lock directory.
 */
export async function ensureReferenceHarness(): Promise<string> {
  if (isFresh()) return REFERENCE_HARNESS_BIN;
  const lock = join(tmpdir(), `antigravity-harness-build-${Buffer.from(REPO_ROOT).toString("hex").slice(-24)}.lock`);
  const until = Date.now() + BUILD_TIMEOUT_MS;
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      if (Date.now() > until) throw new Error(`timed out waiting for another build of the reference harness (lock ${lock})`);
      await sleep(200);
      if (isFresh()) return REFERENCE_HARNESS_BIN;
    }
  }
  try {
    if (!isFresh()) await build();
  } finally {
    rmdirSync(lock);
  }
  if (!existsSync(REFERENCE_HARNESS_BIN)) throw new Error(`the build did not produce ${REFERENCE_HARNESS_BIN}`);
  return REFERENCE_HARNESS_BIN;
}

/**
 * {@link ensureReferenceHarness}, for tests that run it with its offline scripted model: removes
 * the model credentials (`GEMINI_API_KEY`, a provider override) from this process's environment,
 * which the harness inherits.
 */
export async function ensureScriptedReferenceHarness(): Promise<string> {
  const path = await ensureReferenceHarness();
  delete process.env.GEMINI_API_KEY;
  delete process.env.ANTIGRAVITY_MODEL_PROVIDER;
  return path;
}

function build(): Promise<void> {
  return rollupBuild(["sdk", "harness"]);
}

function isFresh(): boolean {
  return existsSync(REFERENCE_HARNESS_BIN) && !isStale("harness") && !isStale("sdk");
}
