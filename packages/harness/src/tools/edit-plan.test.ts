import { ActionEditFile_DiffLine_LineAction as LineAction } from "@antigravity-ts/sdk/wire";
import { describe, expect, it } from "vitest";
import { MAX_DIFF_LINES, planEdit, type DiffBlock } from "./edit-plan.js";
import { MAX_TEXT_FILE_BYTES } from "./text-file.js";

const all = (oldString: string, newString: string) => ({ oldString, newString, replaceAll: true, shown: "f.txt" });
const lines = (block: DiffBlock, action: LineAction) =>
  block.lines.filter((l) => l.action === action).map((l) => l.text);

/** The straightforward (quadratic) diff of one occurrence: the reference the linear pass must agree with. */
function referenceBlock(text: string, offset: number, oldString: string, newString: string): DiffBlock {
  const lineStart = text.lastIndexOf("\n", offset - 1) + 1;
  const end = offset + oldString.length;
  const lineEnd = text.indexOf("\n", end) === -1 ? text.length : text.indexOf("\n", end);
  const before = text.slice(lineStart, lineEnd).split("\n");
  const after = (text.slice(lineStart, offset) + newString + text.slice(end, lineEnd)).split("\n");
  const startLine = text.slice(0, lineStart).split("\n").length;
  return {
    startLine,
    endLine: startLine + before.length - 1,
    lines: [
      ...before.map((t) => ({ text: t, action: LineAction.DELETE })),
      ...after.map((t) => ({ text: t, action: LineAction.INSERT })),
    ],
  };
}

describe("planEdit", () => {
  it("replaces 100,000 occurrences on 20,000 lines, with one block per line, the same as the reference diff", () => {
    const text = Array.from({ length: 20_000 }, (_, i) => `${i}: x x x x x`).join("\n");
    const plan = planEdit(text, all("x", "yy"));
    expect(plan.count).toBe(100_000);
    expect(plan.content).toBe(text.split("x").join("yy"));
    expect(plan.diffComplete).toBe(false);
    expect(plan.blocks.reduce((n, b) => n + b.lines.length, 0)).toBeLessThanOrEqual(MAX_DIFF_LINES);
    expect(plan.blocks[0]).toEqual({
      startLine: 1,
      endLine: 1,
      lines: [
        { text: "0: x x x x x", action: LineAction.DELETE },
        { text: "0: yy yy yy yy yy", action: LineAction.INSERT },
      ],
    });
    expect(plan.blocks.map((b) => b.startLine)).toEqual(plan.blocks.map((_, i) => i + 1));
  });

  it("agrees with the reference diff for occurrences on separate lines, at the start, the end and around empty lines", () => {
    const text = "foo\n\nbar foo\r\nbaz\n\nfoo";
    const plan = planEdit(text, all("foo", "q\nr"));
    const offsets = [0, 9, 19];
    expect(offsets.map((at) => text.slice(at, at + 3))).toEqual(["foo", "foo", "foo"]);
    expect(plan.blocks).toEqual(offsets.map((offset) => referenceBlock(text, offset, "foo", "q\nr")));
    expect(plan.content).toBe("q\nr\n\nbar q\nr\r\nbaz\n\nq\nr");
    expect(plan.diffComplete).toBe(true);
  });

  it("puts occurrences sharing a line, or joined by a multi-line old_string, in one block that shows every replacement", () => {
    const plan = planEdit("a-a\nb\na\nc", all("a", "Z"));
    expect(plan.blocks).toHaveLength(2);
    expect(plan.blocks[0]).toMatchObject({ startLine: 1, endLine: 1 });
    expect(lines(plan.blocks[0] as DiffBlock, LineAction.INSERT)).toEqual(["Z-Z"]);
    expect(plan.blocks[1]).toMatchObject({ startLine: 3, endLine: 3 });

    const spanning = planEdit("1\nx\ny\nx\ny\n2", all("x\ny", "w"));
    expect(spanning.content).toBe("1\nw\nw\n2");
    expect(spanning.blocks.map((b) => [b.startLine, b.endLine])).toEqual([
      [2, 3],
      [4, 5],
    ]);
    const joined = planEdit("ab\nab", all("b\na", "-"));
    expect(joined.blocks).toEqual([referenceBlock("ab\nab", 1, "b\na", "-")]);
  });

  it("finds non-overlapping occurrences left to right, like split", () => {
    const plan = planEdit("aaaaa", all("aa", "b"));
    expect(plan).toMatchObject({ count: 2, content: "bba" });
    expect(planEdit("x", all("x", "xx")).content).toBe("xx");
  });

  it("refuses an empty, missing or ambiguous old_string, and a result over the size limit, saying what to do", () => {
    expect(() => planEdit("abc", all("", "x"))).toThrow("use create_file");
    expect(() => planEdit("abc", all("z", "x"))).toThrow("old_string was not found in f.txt");
    expect(() => planEdit("a a", { ...all("a", "b"), replaceAll: false })).toThrow(
      "occurs 2 times in f.txt; include more context to make it unique, or pass replace_all: true",
    );
    expect(planEdit("a b", { ...all("a", "c"), replaceAll: false }).content).toBe("c b");
    const big = "x".repeat(1000);
    expect(() => planEdit(big, all("x", "y".repeat(MAX_TEXT_FILE_BYTES / 500)))).toThrow(
      `more than the ${MAX_TEXT_FILE_BYTES}-byte limit`,
    );
    expect(() => planEdit("a", all("a", "é".repeat(MAX_TEXT_FILE_BYTES / 2 + 1)))).toThrow("make a smaller edit");
  });
});
