// Makes sure the packages' JavaScript in dist/ is present and newer than their sources, so
// `npm start` and `npm run bench` work on a fresh clone right after `npm ci`. It runs the real
// build (rollup.config.mjs, JavaScript only: no declarations), so worker entries, subpath entries
// and chunks are exactly those of `npm run build`; the entry list is scripts/build-entries.mjs.
// Reached as `@antigravity-ts/test-kit/ensure-dist` (bench/run.mjs, scripts/quickstart.mjs); the
// test kit's own launcher of the reference harness shares its staleness check and build.
import { execFile } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { outputFile, packages } from "../../../scripts/build-entries.mjs";

const root = fileURLToPath(new URL("../../../", import.meta.url));
const BUILD_TIMEOUT_MS = 5 * 60_000;

/**
 * Builds every package whose dist is missing or older than its sources. Returns the names built.
 * @param {{ log?: (line: string) => void }} [options]
 */
export async function ensureDist(options = {}) {
  const log = options.log ?? (() => {});
  const stale = Object.keys(packages).filter((name) => isStale(name));
  if (stale.length === 0) return [];
  log(`building ${stale.join(", ")} (JavaScript only)…`);
  await rollupBuild(stale, { jsOnly: true });
  return stale;
}

/**
 * Runs rollup.config.mjs for `names` (package names of scripts/build-entries.mjs).
 * @param {string[]} names
 * @param {{ jsOnly?: boolean }} [options]
 */
export function rollupBuild(names, options = {}) {
  const rollup = join(root, "node_modules", "rollup", "dist", "bin", "rollup");
  const env = { ...process.env, BUILD_ONLY: names.join(",") };
  if (options.jsOnly) env.BUILD_JS_ONLY = "1";
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [rollup, "-c", "rollup.config.mjs"],
      { cwd: root, env, timeout: BUILD_TIMEOUT_MS },
      (error, _stdout, stderr) => {
        if (error) reject(new Error(`building ${names.join(", ")} failed: ${stderr}`, { cause: error }));
        else resolve();
      },
    );
  });
}

/**
 * True when a package's dist is missing an entry point or older than any of its sources.
 * @param {"sdk" | "harness" | "node" | "cli"} name
 */
export function isStale(name) {
  const dir = join(root, "packages", name);
  const outputs = Object.keys(packages[name].entries).map((out) => join(dir, "dist", outputFile(name, out)));
  if (!outputs.every((file) => existsSync(file))) return true;
  const built = Math.min(...outputs.map((file) => statSync(file).mtimeMs));
  return newestSource(join(dir, "src")) > built;
}

function newestSource(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestSource(path));
    else if (!entry.name.endsWith(".test.ts")) newest = Math.max(newest, statSync(path).mtimeMs);
  }
  return newest;
}
