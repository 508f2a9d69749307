import { existsSync, mkdirSync, rmdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { isStale, rollupBuild } from "./ensure-dist.mjs";
import { harnessEnv } from "./harness-launcher.js";

/** Root of the repository (this file is packages/test-kit/src/). */
export const REPO_ROOT = fileURLToPath(new URL("../../../", import.meta.url));
/** The reference harness entry that `@antigravity-ts/harness`'s bin points to. */
export const REFERENCE_HARNESS_BIN = join(REPO_ROOT, "packages", "harness", "dist", "bin.cjs");

const BUILD_TIMEOUT_MS = 240_000;

/**
 * Builds the reference harness (`BUILD_ONLY=sdk,harness rollup`) when its dist is missing or
 * older than its sources, and returns the path of `dist/bin.cjs`. Test files running in
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
      if (Date.now() > until)
        throw new Error(`timed out waiting for another build of the reference harness (lock ${lock})`);
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
 * {@link ensureReferenceHarness}, for tests that run it with its offline scripted model through
 * the SDK or the CLI, which start it with this process's environment: that environment becomes
 * the scripted-harness one, {@link harnessEnv}() (model credentials and `ANTIGRAVITY_*` removed,
 * the scripted provider chosen).
 */
export async function ensureScriptedReferenceHarness(): Promise<string> {
  const path = await ensureReferenceHarness();
  const env = harnessEnv();
  for (const key of Object.keys(process.env)) if (!Object.hasOwn(env, key)) delete process.env[key];
  Object.assign(process.env, env);
  return path;
}

function build(): Promise<void> {
  return rollupBuild(["sdk", "harness"]);
}

function isFresh(): boolean {
  return existsSync(REFERENCE_HARNESS_BIN) && !isStale("harness") && !isStale("sdk");
}
