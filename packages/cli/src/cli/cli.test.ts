import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { liveChildCount } from "@antigravity-ts/node/internal";
import { ensureScriptedReferenceHarness } from "@antigravity-ts/test-kit";
import { CliUsageError, parseCliArgs } from "./cli-args.js";
import { describeModel } from "./demo-agent.js";
import { QUICKSTART_PROMPTS, runOneShot } from "./quickstart.js";
import { runRepl } from "./repl.js";

// The quick start and the REPL end to end: the real reference harness as a subprocess, with its
// offline scripted model (GEMINI_API_KEY and a provider override are removed from the harness env).
let harnessPath = "";
let scratch = "";
beforeAll(async () => {
  harnessPath = await ensureScriptedReferenceHarness();
  scratch = await mkdtemp(join(tmpdir(), "antigravity-cli-test-"));
}, 300_000);
afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

/** Runs the REPL with `lines` piped in (then the end of input); resolves its exit code and output. */
async function pipeRepl(lines: readonly string[]): Promise<{ code: number; text: string }> {
  const input = new PassThrough();
  const out = Object.assign(new PassThrough(), { isTTY: false });
  let text = "";
  out.on("data", (chunk: Buffer) => (text += chunk.toString()));
  const done = runRepl({ mode: "interactive", verbose: false, harnessPath }, input, out);
  input.end(lines.map((line) => `${line}\n`).join(""));
  return { code: await done, text };
}

function count(text: string, part: string): number {
  return text.split(part).length - 1;
}

/** A non-TTY output that records what was written. */
function capture(): { write(text: string): boolean; text(): string; isTTY: false } {
  let text = "";
  return { write: (chunk: string) => ((text += chunk), true), text: () => text, isTTY: false };
}

describe("parseCliArgs", () => {
  it("reads modes, prompts and options", () => {
    expect(parseCliArgs([])).toEqual({ mode: "demo", verbose: false });
    expect(parseCliArgs(["-i", "--harness", "/h", "--no-color"])).toEqual({
      mode: "interactive",
      harnessPath: "/h",
      color: false,
      verbose: false,
    });
    expect(parseCliArgs(["hello", "world"])).toMatchObject({ mode: "prompt", prompt: "hello world" });
    expect(parseCliArgs(["-p", "hi", "--verbose"])).toMatchObject({ mode: "prompt", prompt: "hi", verbose: true });
    expect(() => parseCliArgs(["--bogus"])).toThrow(CliUsageError);
    expect(() => parseCliArgs(["--harness"])).toThrow(CliUsageError);
    expect(() => parseCliArgs(["-i", "hello"])).toThrow(CliUsageError);
  });
});

describe("describeModel", () => {
  it("names the script file of the scripted model when ANTIGRAVITY_SCRIPT is set", () => {
    expect(describeModel({})).toBe("offline scripted demo model (set GEMINI_API_KEY for Gemini)");
    expect(describeModel({ ANTIGRAVITY_SCRIPT: "turns.json" })).toBe(
      "offline scripted model playing turns.json (ANTIGRAVITY_SCRIPT; set GEMINI_API_KEY for Gemini)",
    );
    expect(
      describeModel({ ANTIGRAVITY_SCRIPT: "turns.json", ANTIGRAVITY_MODEL_PROVIDER: "scripted", GEMINI_API_KEY: "k" }),
    ).toBe("offline scripted model playing turns.json (ANTIGRAVITY_SCRIPT; ANTIGRAVITY_MODEL_PROVIDER=scripted)");
    expect(describeModel({ ANTIGRAVITY_SCRIPT: "turns.json", GEMINI_API_KEY: "k" })).toBe(
      "Gemini (GEMINI_API_KEY is set)",
    );
    expect(describeModel({ ANTIGRAVITY_MODEL_PROVIDER: "openai" })).toBe("openai (ANTIGRAVITY_MODEL_PROVIDER)");
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
    // The demo looks at the workspace with find_file, a default built-in (list_directory is none since upstream 0.1.19).
    expect(text).toContain('… find_file({"directory_path":".","pattern":"*"})');
    expect(text).toMatch(/✔ find_file/);
    expect(text).toMatch(/Workspace entries found: \d+\./);
    expect(text).toMatch(/✔ get_weather\(\{"city":"Tokyo"\}\) → \{"city":"Tokyo",/);
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

  it("asks the weather tool about the city the prompt names", async () => {
    const out = capture();
    expect(
      await runOneShot({ mode: "prompt", prompt: "What's the weather in Tokyo?", verbose: false, harnessPath }, out),
    ).toBe(0);
    expect(out.text()).toMatch(/✔ get_weather\(\{"city":"Tokyo"\}\) → \{"city":"Tokyo",/);
    expect(out.text()).toMatch(/Your tool's answer: \{"city":"Tokyo",/);
    expect(out.text()).not.toContain("Paris");
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
    expect(count(text, "allow run_command `echo hello`? [y/N]")).toBe(1);
    expect(text).toMatch(/✖ run_command/);
    expect(liveChildCount()).toBe(0);
  });

  it("prints each piped prompt on its own prompt line and runs the queued lines before leaving at the end of input", async () => {
    const { code, text } = await pipeRepl(["Hello there", "What is the weather for Oslo?"]);
    expect(code).toBe(0);
    expect(text).toContain("\n› Hello there\n");
    expect(text).toContain("\n› What is the weather for Oslo?\n");
    expect(text).toMatch(/✔ get_weather\(\{"city":"Oslo"\}\)/);
    expect(count(text, "tokens: this turn")).toBe(2);
  });

  it("runs slash commands: /help, /usage, /history, an unknown one, /clear", async () => {
    const { code, text } = await pipeRepl([
      "/help",
      "/history",
      "Hello there",
      "/usage",
      "/history",
      "/bogus",
      "/clear",
      "/history",
      "/exit",
      "never sent",
    ]);
    expect(code).toBe(0);
    expect(text).toContain("/save [file]");
    expect(text).toContain("no turns yet");
    expect(text).toMatch(/turns: 1\ntokens: this turn \d+ in/);
    expect(text).toMatch(/1 › Hello there\n {2}tools: find_file, get_weather\n {2}\(scripted demo model/);
    expect(text).toContain("unknown command /bogus; /help lists the commands");
    expect(text).toMatch(/new conversation [0-9a-f-]{36}\n/);
    expect(count(text, "no turns yet")).toBe(2);
    expect(text).not.toContain("never sent");
    expect(liveChildCount()).toBe(0);
  });

  it("/save then /load continues the conversation, in the same REPL and in another, with the model's context", async () => {
    const file = join(scratch, "saved.json");
    const first = await pipeRepl(["Hello there", `/save ${file}`, "/clear", `/load ${file}`, "/history", "/usage"]);
    expect(first.code).toBe(0);
    const saved = JSON.parse(await readFile(file, "utf8")) as {
      format: string;
      conversationId: string;
      turnCount: number;
    };
    expect(saved).toMatchObject({ format: "antigravity-ts.conversation", turnCount: 1 });
    expect(first.text).toContain(`saved 1 turn of conversation ${saved.conversationId} to ${file}`);
    expect(first.text).toContain(`loaded 1 turn of conversation ${saved.conversationId}\n`);
    expect(first.text).toMatch(/1 › Hello there\n/);
    expect(first.text).toMatch(/turns: 1\n/);

    const second = await pipeRepl([`/load ${file}`, "Next one", "/history", `/load ${join(scratch, "missing.json")}`]);
    expect(second.code).toBe(0);
    expect(second.text).toContain(`loaded 1 turn of conversation ${saved.conversationId}\n`);
    expect(second.text).toMatch(/1 › Hello there\n[\s\S]*2 › Next one\n/);
    expect(second.text).toMatch(/\/load: NotFound: there is no .*missing\.json; \/save <file> writes one/);

    // Without the harness's copy beside it the history comes back, and the REPL says the model lacks its context.
    await rm(`${file}.harness`, { recursive: true });
    // A turn after it is added to that history, not written over it (the new harness numbers its steps from 0 again).
    const third = await pipeRepl([`/load ${file}`, "Another one", "/history"]);
    expect(third.text).toContain(
      `loaded 1 turn of conversation ${saved.conversationId}; the harness has no record of it`,
    );
    expect(third.text).toMatch(/1 › Hello there\n[\s\S]*2 › Another one\n/);
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
