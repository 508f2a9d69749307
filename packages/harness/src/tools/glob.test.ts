import { describe, expect, it } from "vitest";
import { MAX_GLOB_LENGTH, compileGlob } from "./glob.js";

describe("compileGlob", () => {
  it("matches * ? ** and nested {a,b} with the usual meaning; everything else is literal", () => {
    const cases: [string, string, boolean][] = [
      ["*.ts", "a.ts", true],
      ["*.ts", "dir/a.ts", false],
      ["src/**/*.ts", "src/a.ts", true],
      ["src/**/*.ts", "src/x/y/a.ts", true],
      ["src/**/*.ts", "lib/a.ts", false],
      ["**", "a/b/c", true],
      ["a?c", "abc", true],
      ["a?c", "a/c", false],
      ["?.{md,txt}", "a.md", true],
      ["*.{ts,{m,c}js}", "x.mjs", true],
      ["*.{ts,{m,c}js}", "x.js", false],
      ["a+b(c)[d]$^|.x", "a+b(c)[d]$^|.x", true],
      ["a.b", "axb", false],
      ["back\\slash", "back\\slash", true],
      ["line*", "line\nbreak", true],
    ];
    for (const [glob, subject, expected] of cases)
      expect([glob, subject, compileGlob(glob)(subject)]).toEqual([glob, subject, expected]);
  });

  it("matches a pathological glob against a long name without backtracking (V8's RegExp of it does not finish)", () => {
    const glob = `${"*a".repeat(40)}*b`;
    const name = "a".repeat(250);
    expect(compileGlob(glob)(name)).toBe(false);
    expect(compileGlob(glob)(`${name}b`)).toBe(true);
    expect(compileGlob(`**/${"**a".repeat(30)}c`)(`${"a/".repeat(120)}a`)).toBe(false);
  });

  it("refuses empty, too long and unbalanced globs with a message", () => {
    expect(() => compileGlob("")).toThrow("pattern must not be empty");
    expect(() => compileGlob("a".repeat(MAX_GLOB_LENGTH + 1))).toThrow(`the limit is ${MAX_GLOB_LENGTH}`);
    expect(() => compileGlob("{a,b")).toThrow('has an unclosed "{"');
    expect(compileGlob("a}b")("a}b")).toBe(true);
  });
});
