import { defineConfig } from "vitest/config";

// Cloudflare Workers suite: each test bundles a Worker from the built SDK (workerd export
// conditions) and runs it in miniflare's workerd against the reference harness.
// Run `npm run build` first.
export default defineConfig({
  test: {
    include: ["test/workerd/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: "forks",
  },
});
