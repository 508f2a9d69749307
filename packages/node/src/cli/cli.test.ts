import { PassThrough } from "node:stream";
import { beforeAll, describe, expect, it } from "vitest";
import { liveChildCount } from "../subprocess/child-registry.js";
import { ensureScriptedReferenceHarness } from "../subprocess/testing/reference-harness.js";
import { CliUsageError, parseCliArgs } from "./cli-args.js";
import { QUICKSTART_PROMPTS, runOneShot } from "./quickstart.js";
import { runRepl } from "./repl.js";

// The quick start and the REPL end to end: the real reference harness as a subprocess, with its
// offline scripted model (GEMINI_API_KEY and a provider override are removed from the harness env).
let harnessPath = "";
beforeAll(async () => {
  harnessPath = await ensureScriptedReferenceHarness();
}, 300_000);

/** A non-TTY output that records what was written. */
function capture(): { write(text: string): boolean; text(): string; isTTY: false } {
  let text = "";
  return { write: (chunk: string) => ((text += chunk), true), text: () => text, isTTY: false };
}

describe("parseCliArgs", () => {
  it("reads modes, prompts and options", () => {
    expect(parseCliArgs([])).toEqual({ mode: "demo", verbose: false });
    expect(parseCliArgs(["-i", "--harness", "/h", "--no-color"])).toEqual({ mode: "interactive", harnessPath: "/h", color: false, verbose: false });
    expect(parseCliArgs(["hello", "world"])).toMatchObject({ mode: "prompt", prompt: "hello world" });
    expect(parseCliArgs(["-p", "hi", "--verbose"])).toMatchObject({ mode: "prompt", prompt: "hi", verbose: true });
    expect(() => parseCliArgs(["--bogus"])).toThrow(CliUsageError);
    expect(() => parseCliArgs(["--harness"])).toThrow(CliUsageError);
    expect(() => parseCliArgs(["-i", "hello"])).toThrow(CliUsageError);
  });
});

describe("quick start", () => {
  it("streams thoughts, text, a built-in tool, the client tool, the policy check and usage as plain lines", async () => {
    const out = capture();
    const code = await runOneShot({ mode: "demo", verbose: false, harnessPath }, out);
    const text = out.text();
    expect(code).toBe(0);
    expect(text).toContain("harness: option");
    expect(text).toContain(`› ${QUICKSTART_PROMPTS[0]}`);
    expect(text).toContain("thinking: ");
    expect(text).toContain("scripted demo model");
    expect(text).toMatch(/… list_directory\(/);
    expect(text).toMatch(/✔ list_directory/);
    expect(text).toMatch(/✔ get_weather\(\{"city":"[^"]*"\}\) → \{"city":/);
    expect(text).toContain("policy: run_command `echo hello` → allowed");
    expect(text).toMatch(/✔ run_command/);
    expect(text).toMatch(/tokens: this turn \d+ in · \d+ out/);
    expect(text).not.toContain("\x1b[");
    expect(liveChildCount()).toBe(0);
  });

  it("runs one turn with a custom prompt", async () => {
    const out = capture();
    expect(await runOneShot({ mode: "prompt", prompt: "Say hi", verbose: false, harnessPath }, out)).toBe(0);
    expect(out.text()).toContain("› Say hi");
    expect(out.text()).not.toContain(QUICKSTART_PROMPTS[1]);
  });
});

describe("REPL", () => {
  it("answers each line, asks before run_command, and leaves on exit", async () => {
    const input = new PassThrough();
    const out = Object.assign(new PassThrough(), { isTTY: false });
    let text = "";
    out.on("data", (chunk: Buffer) => (text += chunk.toString()));
    const done = runRepl({ mode: "interactive", verbose: false, harnessPath }, input, out);
    input.write("What is the weather in Oslo?\n");
    input.write("please run the tests\n");
    input.write("n\n");
    input.write("exit\n");
    expect(await done).toBe(0);
    expect(text).toMatch(/✔ get_weather\(\{"city":"[^"]*"\}\) → \{"city":/);
    expect(text).toContain("allow run_command `echo hello`? [y/N]");
    expect(text).toMatch(/✖ run_command/);
    expect(liveChildCount()).toBe(0);
  });

  it("leaves on end of input", async () => {
    const input = new PassThrough();
    const out = Object.assign(new PassThrough(), { isTTY: false });
    const done = runRepl({ mode: "interactive", verbose: false, harnessPath }, input, out);
    input.end();
    expect(await done).toBe(0);
    expect(liveChildCount()).toBe(0);
  });
});
