import { defineConfig } from "vitest/config";

// The Node end-to-end suite again, with `@antigravity-ts/*` resolved to the rollup output in
// packages/*/dist: no "antigravity-source" condition here (vitest.config.ts has it). Run `npm run build` first.
export default defineConfig({
  test: {
    include: ["test/built/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: "forks",
  },
});
