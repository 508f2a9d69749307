// Bundles an entry the way a browser or Worker build would (esbuild, platform=browser, the runtime's
// export conditions, built dist — never the "source" condition) and reports what it reached.
// Shared by scripts/bundle-size.mjs and test/built/no-node-imports.test.ts.
import { gzipSync } from "node:zlib";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

/** Repository root (this file lives in scripts/). */
export const repoRoot = fileURLToPath(new URL("..", import.meta.url));

/** Export conditions per target runtime, as its usual bundler sets them. */
export const runtimeConditions = {
  browser: ["browser"],
  // wrangler's conditions; isomorphic-ws has only a "browser" field, which platform=browser honours.
  workerd: ["workerd", "worker", "browser"],
};

/**
 * Bundles `entry` with esbuild for `runtime`, minified: either `{ contents }`, an ES module that
 * imports the packages (resolved from the repo root), or `{ file }`, a module of the repository
 * bundled as the entry point itself (so its default export and side effects count). Node
 * builtins are NOT marked external, so reaching one fails the bundle, which is the point.
 * @returns {Promise<{ code: string, minifiedBytes: number, gzipBytes: number, inputs: string[], imports: string[] }>}
 */
export async function bundleForBrowser(entry, { runtime = "browser", minify = true } = {}) {
  const input = typeof entry === "string" ? { contents: entry } : entry;
  const result = await build({
    ...(input.file !== undefined
      ? { entryPoints: [input.file], outdir: "out" }
      : { stdin: { contents: input.contents, resolveDir: repoRoot, sourcefile: "entry.mjs", loader: "js" } }),
    bundle: true,
    write: false,
    format: "esm",
    platform: "browser",
    target: "es2022",
    conditions: runtimeConditions[runtime],
    minify,
    metafile: true,
    logLevel: "silent",
    absWorkingDir: repoRoot,
  });
  const output = result.outputFiles[0];
  if (!output) throw new Error("esbuild produced no output");
  const code = output.text;
  const [meta] = Object.values(result.metafile.outputs);
  return {
    code,
    minifiedBytes: Buffer.byteLength(code),
    gzipBytes: gzipSync(code, { level: 9 }).length,
    inputs: Object.keys(result.metafile.inputs),
    imports: (meta?.imports ?? []).map((i) => i.path),
  };
}

/**
 * What a browser bundle must never contain: the `ws` package (Node sockets) or a `node:` import.
 * Returns human-readable offences; empty when clean.
 */
export function forbiddenReach({ inputs, imports }) {
  const offences = [];
  for (const input of inputs) {
    if (/(^|\/)node_modules\/ws\//.test(input)) offences.push(`bundles the Node-only "ws" package (${input})`);
    if (/(^|\/)node_modules\/isomorphic-ws\/node\.js$/.test(input)) offences.push(`resolves isomorphic-ws to its Node entry (${input})`);
    if (input.startsWith("node:")) offences.push(`reaches ${input}`);
  }
  for (const specifier of imports) offences.push(`leaves a run-time import of "${specifier}"`);
  return offences;
}
