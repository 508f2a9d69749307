import { describe, expect, it } from "vitest";
import { bundleForBrowser } from "../../scripts/bundle-for-browser.mjs";

// Issue 14 item 1: a browser app's start-up download holds neither the protobuf-es runtime nor
// the generated schema; both come in one lazily imported chunk (the full frame decoder), which
// the connection fetches only for a frame its fast reader leaves undecided.

describe("the built SDK keeps the schema and the protobuf runtime out of the start-up bundle", () => {
  for (const [label, contents] of [
    ["Agent + WebSocketTransport", `export { Agent, WebSocketTransport } from "@antigravity-ts/sdk";`],
    ["everything @antigravity-ts/sdk exports", `export * from "@antigravity-ts/sdk";`],
  ] as const) {
    it(`${label}: no @bufbuild/protobuf and no frames chunk at start; both in a lazy chunk`, async () => {
      const bundle = await bundleForBrowser(contents, { runtime: "browser", minify: true });
      expect(bundle.startInputs.some((file) => file.includes("packages/sdk/dist/"))).toBe(true);
      expect(bundle.startInputs.filter((file) => file.includes("node_modules/@bufbuild/protobuf/"))).toEqual([]);
      expect(bundle.startInputs.filter((file) => /packages\/sdk\/dist\/chunks\/frames-/.test(file))).toEqual([]);
      expect(bundle.inputs.some((file) => file.includes("node_modules/@bufbuild/protobuf/"))).toBe(true);
      expect(bundle.lazyGzipBytes).toBeGreaterThan(0);
    });
  }
});
