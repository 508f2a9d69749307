import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { REPO_ROOT } from "@antigravity-ts/test-kit";
import { type DocsBlock, docsBlocks, flagProblems, thirdPartyImports } from "../../../scripts/docs-blocks.mjs";

// Issue 26 item 8: every ts/js/tsx block of README.md and docs/ is type-checked against the packed
// packages and, unless its fence says `no-run: <why>` (or `no-check: <why>`), run with Node and
// must exit 0 — in the consumer suite (scripts/consumer-suite.mjs, the `packages` section of
// npm test), which installs the packed packages once. Here: the fences' flags, which decide what
// that check does with each block, so a block is never skipped silently.

const blocks = docsBlocks(REPO_ROOT);
const scratch = mkdtempSync(path.join(tmpdir(), "docs-blocks-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** The blocks of a page written to the scratch folder. */
function blocksOfPage(markdown: string): DocsBlock[] {
  writeFileSync(path.join(scratch, "page.md"), markdown);
  return docsBlocks(scratch, ["page.md"]);
}

describe("the code blocks of README.md and docs/", () => {
  it("are all found, and every flag is known and says why a block is not run", () => {
    expect(blocks.length).toBeGreaterThan(40);
    expect(flagProblems(blocks)).toEqual([]);
    for (const block of blocks) {
      const kept = [block.noRun, block.noCheck].filter((reason) => reason !== undefined);
      expect(
        kept.every((reason) => reason.length > 0),
        block.key,
      ).toBe(true);
    }
  });

  it("run the README's quick start, and type-check all but another runtime's code", () => {
    const readme = blocks.filter((b) => b.file === "README.md");
    expect(readme.length).toBeGreaterThanOrEqual(2);
    expect(readme.filter((b) => b.noRun !== undefined || b.noCheck !== undefined)).toEqual([]);
    const unchecked = blocks.filter((b) => b.noCheck !== undefined).map((b) => b.key);
    expect(unchecked).toEqual(["docs/ai-sdk.md#6", "docs/runtimes.md#6"]);
  });

  it("name the packages beyond this repository's that a project needs for them", () => {
    expect(thirdPartyImports(blocks)).toEqual(expect.arrayContaining(["ai", "zod"]));
    expect(thirdPartyImports(blocks).some((name) => name.startsWith("@antigravity-ts/"))).toBe(false);
  });
});

describe("the fence flags", () => {
  it("file= places a block as that file of its page; no-run and no-check keep their reason", () => {
    const [route, page, plain] = blocksOfPage(
      [
        "```ts file=src/route.ts",
        "export const a = 1;",
        "```",
        "```tsx file=src/page.tsx no-check: a browser page",
        "export const b = 2;",
        "```",
        "```ts no-run: needs GEMINI_API_KEY",
        "console.log(1);",
        "```",
        "```json",
        "{}",
        "```",
      ].join("\n"),
    );
    expect(route).toMatchObject({ key: "page.md#1", source: "page/src/route.ts", line: 1, problems: [] });
    expect(page).toMatchObject({ key: "page.md#2", source: "page/src/page.tsx", noCheck: "a browser page" });
    expect(plain).toMatchObject({ key: "page.md#3", source: "page/block-3.ts", noRun: "needs GEMINI_API_KEY" });
    expect(plain?.code).toBe("console.log(1);\n");
  });

  it("refuses an unknown flag, a flag without its reason, a second block for one file and a path that leaves the page", () => {
    const found = blocksOfPage(
      [
        "```ts skip",
        "```",
        "```ts no-run:",
        "```",
        "```ts file=a.ts",
        "```",
        "```ts file=a.ts",
        "```",
        "```ts file=../escape.ts",
        "```",
      ].join("\n"),
    );
    expect(flagProblems(found)).toEqual([
      'page.md:1 (page.md#1): unknown flag "skip" (known: file=<path.ts>, no-run: <why>, no-check: <why>)',
      "page.md:3 (page.md#2): no-run needs a reason: no-run: <why>",
      "page.md:7 (page.md#4): a second block with file=a.ts",
      'page.md:9 (page.md#5): unknown flag "file=../escape.ts" (known: file=<path.ts>, no-run: <why>, no-check: <why>)',
    ]);
  });
});
