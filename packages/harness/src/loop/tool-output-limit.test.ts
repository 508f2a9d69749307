import { describe, expect, it } from "vitest";
import { limitToolOutput, toolOutputLimitOf } from "./tool-output-limit.js";

const truncate = (maxTokens: number) =>
  toolOutputLimitOf({ strategy: { case: "truncate", value: { maxTokens } } } as never);

describe("toolOutputTruncation", () => {
  it("is off without a config, and with max_tokens 0 (upstream: 0 disables)", () => {
    expect(toolOutputLimitOf(undefined)).toBeUndefined();
    expect(truncate(0)).toBeUndefined();
    expect(truncate(-5)).toBeUndefined();
    const big = { output: "x".repeat(10_000) };
    expect(limitToolOutput(big, "run_command", truncate(0))).toBe(big);
  });

  it("leaves a response that fits alone", () => {
    const small = { output: "hello", exit_code: 0 };
    expect(limitToolOutput(small, "run_command", truncate(100))).toBe(small);
  });

  it("keeps the beginning of the longest strings and says so, within the limit", () => {
    const response = { output: `${"a".repeat(2000)}${"z".repeat(8000)}`, exit_code: 3, cwd: "." };
    const limited = limitToolOutput(response, "run_command", truncate(500));
    expect(JSON.stringify(limited).length).toBeLessThanOrEqual(2000);
    expect(limited["exit_code"]).toBe(3);
    const output = limited["output"] as string;
    expect(output.startsWith("a".repeat(1000))).toBe(true);
    expect(output).toMatch(/… \[truncated: \d+ more characters; tool output is limited to about 500 tokens\]$/);
    expect(response.output.length).toBe(10_000); // the step's copy is not changed
  });

  it("counts JSON escapes, and nested strings", () => {
    const response = { results: [{ text: '"\\'.repeat(3000) }, { text: "short" }] };
    const limited = limitToolOutput(response, "search_directory", truncate(300));
    expect(JSON.stringify(limited).length).toBeLessThanOrEqual(1200);
    expect((limited["results"] as { text: string }[])[1]?.text).toBe("short");
  });

  it("gives the beginning of the JSON when strings cannot make it fit", () => {
    const response = { entries: Array.from({ length: 2000 }, (_, i) => i) };
    const limited = limitToolOutput(response, "list_directory", truncate(100));
    expect(limited["truncated"]).toBe(true);
    expect(String(limited["truncated_output"]).startsWith('{"entries":[0,1,2')).toBe(true);
    expect(JSON.stringify(limited).length).toBeLessThanOrEqual(400);
  });

  it("fails the call with the error strategy", () => {
    const error = (message: string) =>
      toolOutputLimitOf({ strategy: { case: "error", value: { maxTokens: 10, errorMessage: message } } } as never);
    const response = { output: "y".repeat(100) };
    expect(limitToolOutput(response, "run_command", error("too long"))).toEqual({ error: "too long" });
    expect(limitToolOutput(response, "run_command", error(""))["error"]).toMatch(
      /the output of run_command is about \d+ tokens, more than the session's limit of 10/,
    );
  });
});

describe("toolOutputTruncation of heavily escaped output", () => {
  it("keeps as much as fits when every character is escaped (NUL bytes)", () => {
    const response = { output: `BEGIN${"\0".repeat(20_000)}` };
    const limited = limitToolOutput(response, "run_command", truncate(200));
    const length = JSON.stringify(limited).length;
    expect(length).toBeLessThanOrEqual(800);
    expect(length).toBeGreaterThan(700);
    expect((limited["output"] as string).startsWith("BEGIN\0")).toBe(true);
  });
});
