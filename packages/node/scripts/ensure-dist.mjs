// Makes sure the packages' JavaScript in dist/ is present and newer than their sources, so
// `npm start` and `npm run bench` work on a fresh clone right after `npm ci`. Builds JS only,
// with esbuild (about a second); `npm run build` (rollup) remains the full build with .d.ts.
// The entry points mirror rollup.config.mjs.
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../../../", import.meta.url));

/** Output name -> source, per package (same as rollup.config.mjs). */
const packages = {
  sdk: { index: "src/index.ts", wire: "src/wire/index.ts", testing: "src/testing/index.ts" },
  harness: { index: "src/index.ts", bin: "src/bin.ts" },
  node: { index: "src/index.ts", cli: "src/cli.ts", "not-node": "src/not-node.ts" },
};

/**
 * Builds every package whose dist is missing or older than its sources. Returns the names built.
 * @param {{ log?: (line: string) => void }} [options]
 */
export async function ensureDist(options = {}) {
  const log = options.log ?? (() => {});
  const stale = Object.keys(packages).filter((name) => isStale(name));
  if (stale.length === 0) return [];
  const { build } = await import("esbuild");
  for (const name of stale) {
    const dir = join(root, "packages", name);
    log(`building ${name} (JavaScript only)…`);
    await build({
      absWorkingDir: dir,
      entryPoints: Object.fromEntries(Object.entries(packages[name]).map(([out, src]) => [out, src])),
      outdir: "dist",
      bundle: true,
      splitting: true,
      format: "esm",
      platform: "neutral",
      target: "es2022",
      sourcemap: true,
      // Dependencies, node builtins and sibling packages stay imports, as in the rollup build.
      packages: "external",
      external: ["node:*"],
      chunkNames: "chunks/[name]-[hash]",
      tsconfig: "tsconfig.json",
      logLevel: "warning",
    });
  }
  return stale;
}

/**
 * True when a package's dist is missing an entry point or older than any of its sources.
 * @param {"sdk" | "harness" | "node"} name
 */
export function isStale(name) {
  const dir = join(root, "packages", name);
  const outputs = Object.keys(packages[name]).map((out) => join(dir, "dist", `${out}.js`));
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
