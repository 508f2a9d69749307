// Bundles an entry the way a browser or Worker build would (esbuild, platform=browser, the runtime's
// export conditions, built dist — never the "antigravity-source" condition) and reports what it reached.
// Shared by scripts/bundle-size.mjs and test/built/no-node-imports.test.ts.
import { gzipSync } from "node:zlib";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

/** Repository root (this file lives in scripts/). */
export const repoRoot = fileURLToPath(new URL("..", import.meta.url));

/** Bytes of `text` gzipped at level 9, as every size here is measured. */
export function gzipSize(text) {
  return gzipSync(text, { level: 9 }).length;
}

/** Export conditions per target runtime, as its usual bundler sets them. */
export const runtimeConditions = {
  browser: ["browser"],
  // wrangler's conditions; isomorphic-ws has only a "browser" field, which platform=browser honours.
  workerd: ["workerd", "worker", "browser"],
};

/**
 * Bundles `entry` with esbuild for `runtime`, minified and code-split as a browser app's bundler
 * would: either `{ contents }`, an ES module that imports the packages (resolved from the repo
 * root), or `{ file }`, a module of the repository bundled as the entry point itself (so its
 * default export and side effects count). Node builtins are NOT marked external, so reaching one
 * fails the bundle, which is the point.
 *
 * Sizes count what a page loads at start — the entry chunk and the chunks it imports statically,
 * each gzipped on its own — apart from the chunks only a dynamic `import()` loads (`lazy*`: the
 * SDK's full frame decoder, fetched on the first frame its fast reader leaves undecided).
 * `fromSource` bundles the TypeScript sources (the "antigravity-source" condition) instead of the
 * built dist, so `startInputBytes` names the source modules: what `bundle-size.mjs --modules` lists.
 * `splitting: false` makes one file, as a bundler without code splitting would: the lazily
 * imported parts are inlined and counted at start.
 * @returns {Promise<{ code: string, startCode: string, minifiedBytes: number, gzipBytes: number, lazyMinifiedBytes: number, lazyGzipBytes: number, inputs: string[], startInputs: string[], startInputBytes: Record<string, number>, imports: string[] }>}
 */
export async function bundleForBrowser(
  entry,
  { runtime = "browser", minify = true, fromSource = false, splitting = true } = {},
) {
  const input = typeof entry === "string" ? { contents: entry } : entry;
  const result = await build({
    ...(input.file !== undefined
      ? { entryPoints: [input.file] }
      : { stdin: { contents: input.contents, resolveDir: repoRoot, sourcefile: "entry.mjs", loader: "js" } }),
    outdir: "out",
    bundle: true,
    splitting,
    write: false,
    format: "esm",
    platform: "browser",
    target: "es2022",
    conditions: fromSource ? ["antigravity-source", ...runtimeConditions[runtime]] : runtimeConditions[runtime],
    minify,
    metafile: true,
    logLevel: "silent",
    absWorkingDir: repoRoot,
  });
  const outputs = result.metafile.outputs;
  // The entry's own output: esbuild marks every dynamically imported chunk as an entry point too.
  const entryPoint = input.file !== undefined ? relative(repoRoot, input.file) : "entry.mjs";
  const entryPath = Object.keys(outputs).find((path) => outputs[path].entryPoint === entryPoint);
  if (entryPath === undefined) throw new Error("esbuild produced no entry chunk");
  const textOf = (path) => {
    const file = result.outputFiles.find((f) => f.path === join(repoRoot, path));
    if (file === undefined) throw new Error(`esbuild output ${path} is missing`);
    return file.text;
  };
  // The entry and what it imports statically, transitively: the start-up download.
  const initial = new Set([entryPath]);
  for (const path of initial) {
    for (const i of outputs[path].imports)
      if (i.kind === "import-statement" && i.external !== true) initial.add(i.path);
  }
  const size = (paths) =>
    paths.reduce((sum, path) => ({ min: sum.min + outputs[path].bytes, gzip: sum.gzip + gzipSize(textOf(path)) }), {
      min: 0,
      gzip: 0,
    });
  const start = size([...initial]);
  const lazy = size(Object.keys(outputs).filter((path) => !initial.has(path)));
  /** Minified bytes each input file puts into the start-up chunks. */
  const startInputBytes = {};
  for (const path of initial) {
    for (const [file, { bytesInOutput }] of Object.entries(outputs[path].inputs))
      if (bytesInOutput > 0) startInputBytes[file] = (startInputBytes[file] ?? 0) + bytesInOutput;
  }
  return {
    code: Object.keys(outputs).map(textOf).join("\n"),
    startCode: [...initial].map(textOf).join("\n"),
    minifiedBytes: start.min,
    gzipBytes: start.gzip,
    lazyMinifiedBytes: lazy.min,
    lazyGzipBytes: lazy.gzip,
    inputs: Object.keys(result.metafile.inputs),
    startInputs: Object.keys(startInputBytes),
    startInputBytes,
    imports: Object.values(outputs).flatMap((output) =>
      output.imports.filter((i) => i.external === true).map((i) => i.path),
    ),
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
    if (/(^|\/)node_modules\/isomorphic-ws\/node\.js$/.test(input))
      offences.push(`resolves isomorphic-ws to its Node entry (${input})`);
    if (input.startsWith("node:")) offences.push(`reaches ${input}`);
  }
  for (const specifier of imports) offences.push(`leaves a run-time import of "${specifier}"`);
  return offences;
}
