// The packages' entry points, shared by rollup.config.mjs (the build) and
// packages/test-kit/src/ensure-dist.mjs (the staleness check before `npm start` and `npm run bench`).

/**
 * Entry points per package: output name -> source file. Every `exports` target and `bin` of the
 * package's package.json must be one of these outputs (test/built/package-exports.test.ts checks).
 * `noTypes` lists executables and guards that need no declarations. `bundled` lists executables
 * built by esbuild into one CommonJS file run from V8's code cache by a CommonJS loader,
 * `dist/<name>.cjs` (rollup.config.mjs, `bundledEntries`), so that they start without resolving a
 * module graph or compiling their start-up again.
 */
export const packages = {
  sdk: {
    entries: {
      index: "src/index.ts",
      wire: "src/wire/index.ts",
      connection: "src/connection/index.ts",
      continuation: "src/continuation/index.ts",
      storage: "src/storage/index.ts",
      internal: "src/internal/index.ts",
      testing: "src/testing/index.ts",
      replay: "src/replay/index.ts",
      acp: "src/acp/index.ts",
      hosted: "src/hosted/index.ts",
    },
  },
  node: {
    entries: {
      index: "src/index.ts",
      internal: "src/internal.ts",
      replay: "src/replay/index.ts",
      acp: "src/acp/index.ts",
      "not-node": "src/not-node.ts",
    },
    noTypes: ["not-node"],
  },
  harness: { entries: { index: "src/index.ts", bin: "src/bin.ts" }, noTypes: ["bin"], bundled: ["bin"] },
  cli: { entries: { index: "src/index.ts", cli: "src/cli.ts" }, noTypes: ["cli"] },
};

/** The file an entry point is built to: `dist/<out>.cjs` for a bundled executable, else `dist/<out>.js`. */
export function outputFile(name, out) {
  return packages[name].bundled?.includes(out) ? `${out}.cjs` : `${out}.js`;
}
