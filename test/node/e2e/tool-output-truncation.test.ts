import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Agent, BuiltinTool, WebSocketTransport, allowAll } from "@antigravity-ts/node";
import { harnessEnv, killAllHarnesses, startListeningHarness, type ListeningHarness } from "@antigravity-ts/test-kit";

// toolOutputTruncation (HarnessConfig.tool_output_truncation, upstream types.py @4bfe2531
// ToolOutputTruncationConfig) through the SDK and the reference harness process: the scripted
// model repeats the run_command output it was given, which keeps its beginning and a notice.

const SCRIPT = {
  turns: [
    {
      match: "print",
      calls: [
        {
          toolCalls: [
            { name: "run_command", args: { CommandLine: "printf 'BEGIN'; head -c 20000 /dev/zero | tr '\\0' z" } },
          ],
        },
        { text: "{{result.output}}" },
      ],
    },
  ],
};

let root = "";
let harness: ListeningHarness;

beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), "antigravity-truncation-"));
  await writeFile(path.join(root, "script.json"), JSON.stringify(SCRIPT));
  harness = await startListeningHarness({ env: harnessEnv(path.join(root, "script.json")), workspace: root });
});

afterAll(async () => {
  await killAllHarnesses();
  await rm(root, { recursive: true, force: true });
});

async function outputSeen(toolOutputTruncation?: number): Promise<string> {
  const started = await new Agent({
    transport: new WebSocketTransport({ host: "127.0.0.1", port: harness.port, apiKey: harness.apiKey }),
    workspaces: [root],
    capabilities: { enabledTools: [BuiltinTool.RunCommand] },
    policies: [allowAll()],
    ...(toolOutputTruncation === undefined ? {} : { toolOutputTruncation }),
  }).start({ timeoutMs: 30_000 });
  try {
    return (await started.chatToCompletion("print it")).text;
  } finally {
    await started.stop();
  }
}

describe("toolOutputTruncation through the SDK", () => {
  it("cuts what the model sees of a long command output, keeping its beginning", async () => {
    const seen = await outputSeen(200);
    expect(seen.startsWith("BEGINzzz")).toBe(true);
    expect(seen).toMatch(/… \[truncated: \d+ more characters; tool output is limited to about 200 tokens\]$/);
    expect(seen.length).toBeLessThan(800);
  });

  it("leaves it whole without the option", async () => {
    expect((await outputSeen()).length).toBe(20_005);
  });
});
