import { defineConfig } from "vitest/config";

// Unit and Node end-to-end suites run against the TypeScript sources through the "antigravity-source" export
// condition; test/built re-runs the end-to-end suite against the rollup output.
export default defineConfig({
  resolve: { conditions: ["antigravity-source"] },
  ssr: { resolve: { conditions: ["antigravity-source"], externalConditions: ["antigravity-source"] } },
  test: {
    include: ["packages/*/src/**/*.test.ts", "test/node/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: "forks",
  },
});
