import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ACP_CAPABILITIES } from "@antigravity-ts/sdk/acp";
import { ensureReferenceHarness } from "@antigravity-ts/test-kit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ACP_CAPABILITIES_COPY, splitCommandLine } from "./acp-agent-command.js";
import { CliUsageError, parseCliArgs } from "./cli-args.js";
import { runOneShot } from "./quickstart.js";

// `antigravity --acp-agent "<command>"`: the one-shot mode against `antigravity-harness --acp`.

let bin = "";
let scratch = "";
beforeAll(async () => {
  bin = await ensureReferenceHarness();
  scratch = await mkdtemp(join(tmpdir(), "antigravity-cli-acp-"));
}, 300_000);
afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

describe("--acp-agent", () => {
  it("splits the command line without a shell", () => {
    expect(splitCommandLine(`gemini --acp`)).toEqual(["gemini", "--acp"]);
    expect(splitCommandLine(`"/a b/agent" --x 'one two' ""`)).toEqual(["/a b/agent", "--x", "one two", ""]);
    expect(splitCommandLine(`agent $(rm -rf x) ; ls`)).toEqual(["agent", "$(rm", "-rf", "x)", ";", "ls"]);
    expect(() => splitCommandLine(`agent "open`)).toThrow(/unterminated/);
  });

  it("the copied capabilities are the acp wire's", () => {
    expect(ACP_CAPABILITIES_COPY).toEqual(ACP_CAPABILITIES);
  });

  it("is parsed, and refused together with --harness", () => {
    expect(parseCliArgs(["--acp-agent", "gemini --acp", "-p", "hi"])).toMatchObject({
      mode: "prompt",
      acpAgent: "gemini --acp",
      prompt: "hi",
    });
    expect(() => parseCliArgs(["--acp-agent", "gemini --acp", "--harness", "x"])).toThrow(CliUsageError);
    expect(() => parseCliArgs(["--acp-agent", ""])).toThrow(CliUsageError);
  });

  it("runs a one-shot prompt against antigravity-harness --acp", { timeout: 120_000 }, async () => {
    const script = join(scratch, "script.json");
    await writeFile(script, JSON.stringify({ turns: [{ match: "", calls: [{ text: "Answer over ACP" }] }] }));
    let text = "";
    const out = { write: (chunk: string) => ((text += chunk), true), isTTY: false as const };
    const code = await runOneShot(
      {
        mode: "prompt",
        prompt: "Say hi",
        verbose: false,
        workspace: scratch,
        acpAgent: `"${process.execPath}" "${bin}" --acp --script "${script}"`,
      },
      out,
    );
    expect(text).toContain("Answer over ACP");
    expect(code).toBe(0);
  });
});
