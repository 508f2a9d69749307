import { describe, expect, it } from "vitest";
import { CliUsageError, parseCliArgs } from "./cli-args.js";

describe("parseCliArgs (node:util parseArgs)", () => {
  it("reads modes, values in both spellings, repeated prompts and positionals", () => {
    expect(parseCliArgs([])).toEqual({ mode: "demo", verbose: false });
    expect(parseCliArgs(["-i", "--workspace", "/w", "--harness=/h", "--verbose", "--no-color"])).toEqual({
      mode: "interactive",
      verbose: true,
      workspace: "/w",
      harnessPath: "/h",
      color: false,
    });
    expect(parseCliArgs(["-p", "one", "--prompt", "two", "three"])).toMatchObject({
      mode: "prompt",
      prompt: "one two three",
    });
    expect(parseCliArgs(["--", "--not-an-option"])).toMatchObject({ mode: "prompt", prompt: "--not-an-option" });
    expect(parseCliArgs(["--help", "--whatever"])).toEqual({ mode: "help", verbose: false });
    expect(parseCliArgs(["--version"])).toEqual({ mode: "version", verbose: false });
  });

  it("turns every mistake into a CliUsageError that names the option and points at --help", () => {
    const cases: Array<[string[], RegExp]> = [
      [["--bogus"], /^unknown option --bogus; run antigravity --help$/],
      [["-x"], /^unknown option -x;/],
      [["-p"], /^--prompt needs a value;/],
      [["--harness"], /^--harness needs a value;/],
      [["--workspace", ""], /^--workspace needs a value;/],
      [["--input-format", "xml", "--output-format", "ndjson"], /--input-format takes text or ndjson, got xml/],
      [["--input-format", "ndjson"], /go together/],
      [["--mid-turn", "interrupt"], /applies to the ndjson mode/],
      [
        ["--input-format", "ndjson", "--output-format", "ndjson", "--mid-turn", "sometimes"],
        /--mid-turn takes queue, interrupt, between-turns-only, got sometimes/,
      ],
      [["-i", "hello"], /--interactive takes no prompt/],
      [["--verbose=yes"], /run antigravity --help$/],
    ];
    for (const [argv, message] of cases) {
      expect(() => parseCliArgs(argv), argv.join(" ")).toThrow(CliUsageError);
      expect(() => parseCliArgs(argv), argv.join(" ")).toThrow(message);
    }
  });
});
