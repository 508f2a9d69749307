import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

// docs/ai-sdk.md shows the example's route, Node server, Worker and page in full: each block is the
// file test/browser/ai-sdk.spec.ts runs in Chromium, so what a reader copies is what is tested.

const root = fileURLToPath(new URL("../..", import.meta.url));

describe("docs/ai-sdk.md", () => {
  it.each(["route.ts", "server.ts", "page-html.ts", "worker.ts", "page.tsx"])(
    "shows docs/examples/ai-sdk/src/%s as it is",
    async (file) => {
      const doc = await readFile(`${root}docs/ai-sdk.md`, "utf8");
      const source = await readFile(`${root}docs/examples/ai-sdk/src/${file}`, "utf8");
      const heading = doc.indexOf(`### \`src/${file}\``);
      expect(heading).toBeGreaterThan(0);
      const block = /```tsx?[^\n]*\n([\s\S]*?)```/.exec(doc.slice(heading))?.[1];
      expect(block).toBe(source);
    },
  );
});
