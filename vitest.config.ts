import { defineConfig } from "vitest/config";

// Unit and Node end-to-end suites run against the TypeScript sources through the "source" export
// condition; test/built re-runs the end-to-end suite against the rollup output.
export default defineConfig({
  resolve: { conditions: ["source"] },
  ssr: { resolve: { conditions: ["source"], externalConditions: ["source"] } },
  test: {
    include: ["packages/*/src/**/*.test.ts", "test/node/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: "forks",
  },
});
