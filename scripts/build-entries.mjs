// The packages' entry points, shared by rollup.config.mjs (the build) and
// packages/node/scripts/ensure-dist.mjs (the staleness check before `npm start` and `npm run bench`).

/**
 * Entry points per package: output name -> source file. Every `exports` target and `bin` of the
 * package's package.json must be one of these outputs (test/built/package-exports.test.ts checks).
 * `noTypes` lists executables and guards that need no declarations.
 */
export const packages = {
  sdk: {
    entries: { index: "src/index.ts", wire: "src/wire/index.ts", storage: "src/storage/index.ts", internal: "src/internal/index.ts", testing: "src/testing/index.ts" },
  },
  node: { entries: { index: "src/index.ts", cli: "src/cli.ts", "not-node": "src/not-node.ts" }, noTypes: ["cli", "not-node"] },
  harness: { entries: { index: "src/index.ts", bin: "src/bin.ts" }, noTypes: ["bin"] },
};
