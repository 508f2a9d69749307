import { describe, expect, it } from "vitest";

describe("not-node entry", () => {
  it("throws a clear error when imported", async () => {
    await expect(import("./not-node.js")).rejects.toThrow(
      "@antigravity-ts/node only runs on Node.js; in browsers, Workers and Deno use @antigravity-ts/sdk with WebSocketTransport",
    );
  });
});
