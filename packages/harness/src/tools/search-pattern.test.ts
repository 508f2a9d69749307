import { describe, expect, it } from "vitest";
import { MAX_QUERY_LENGTH, MAX_REGEX_LINE_LENGTH, compileSearchQuery } from "./search-pattern.js";

const regex = (query: string, caseInsensitive = false) => compileSearchQuery(query, { isRegex: true, caseInsensitive });

describe("compileSearchQuery", () => {
  it("answers a catastrophic pattern for V8 at once: RE2 matching is linear", () => {
    const matcher = regex("(a+)+$");
    expect(matcher.test(`${"a".repeat(5000)}!`)).toBe(false);
    expect(matcher.test("a".repeat(5000))).toBe(true);
    expect(regex("(x+x+)+y").test("x".repeat(10_000))).toBe(false);
  });

  it("matches literals and regexes, with and without case", () => {
    expect(compileSearchQuery("a.b", { isRegex: false, caseInsensitive: false }).test("xa.by")).toBe(true);
    expect(compileSearchQuery("a.b", { isRegex: false, caseInsensitive: false }).test("xaxby")).toBe(false);
    expect(compileSearchQuery("HeLLo", { isRegex: false, caseInsensitive: true }).test("say hello")).toBe(true);
    expect(regex("^const \\w+ = \\d+;$").test("const x = 1;")).toBe(true);
    expect(regex("FOO", true).test("a foo")).toBe(true);
    expect(regex("FOO").test("a foo")).toBe(false);
  });

  it("searches only the first part of a huge line with a regex, and counts such lines", () => {
    const matcher = regex("needle");
    expect(matcher.test(`${"x".repeat(MAX_REGEX_LINE_LENGTH)}needle`)).toBe(false);
    expect(matcher.test(`needle${"x".repeat(MAX_REGEX_LINE_LENGTH)}`)).toBe(true);
    expect(matcher.cutLines).toBe(2);
    expect(
      compileSearchQuery("needle", { isRegex: false, caseInsensitive: false }).test(
        `${"x".repeat(MAX_REGEX_LINE_LENGTH)}needle`,
      ),
    ).toBe(true);
  });

  it("refuses empty, too long, invalid, unsupported and too complex queries with a message", () => {
    expect(() => regex("")).toThrow("query must not be empty");
    expect(() => regex("a".repeat(MAX_QUERY_LENGTH + 1))).toThrow(`the limit is ${MAX_QUERY_LENGTH}`);
    expect(() => regex("(a")).toThrow("invalid regular expression");
    expect(() => regex("(?=a)b")).toThrow("no lookaround or backreferences");
    expect(() => regex("(a)\\1")).toThrow("invalid regular expression");
    expect(() => regex("(?:(?:a{1000}){5}){5}")).toThrow(/too complex|invalid/);
  });
});
