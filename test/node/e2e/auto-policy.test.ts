import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Agent, WebSocketTransport, allowAll, auto, deny } from "@antigravity-ts/sdk";
import { harnessEnv, killAllHarnesses, startListeningHarness, type ListeningHarness } from "@antigravity-ts/test-kit";

// Issue 25: upstream 0.1.19's policy.auto() against the reference harness over a real socket. The
// reference harness has no safety assessor: the session starts, the harness names auto policy mode
// as not honoured in its one stderr line, and the policy rules alone decide the call.

const SCRIPT = {
  turns: [
    {
      match: "build",
      calls: [
        { toolCalls: [{ name: "run_command", args: { CommandLine: "make all" } }] },
        { text: "the model read: {{results.run_command}}" },
      ],
    },
  ],
};

/** The harness's one line per session naming the configuration it does not honour. */
const sessionWarning = (stderr: string): string =>
  stderr.split("\n").find((line) => line.includes("this harness does not honour")) ?? "";

describe("auto() against the reference harness", () => {
  let root = "";
  let harness: ListeningHarness | undefined;

  beforeAll(async () => {
    root = await mkdtemp(path.join(tmpdir(), "antigravity-auto-policy-"));
    await writeFile(path.join(root, "script.json"), JSON.stringify(SCRIPT));
    harness = await startListeningHarness({
      env: harnessEnv(path.join(root, "script.json")),
      workspace: root,
      apiKey: "auto-policy-key-0123456789abcdef",
    });
  });

  afterAll(async () => {
    await harness?.stop();
    await killAllHarnesses();
    if (root !== "") await rm(root, { recursive: true, force: true });
  });

  it("starts the session, warns once that auto mode is not honoured, and the rules decide", async () => {
    const before = harness?.stderr().length ?? 0;
    const asked: string[] = [];
    const agent = await Agent.builder()
      .transport(new WebSocketTransport({ host: "127.0.0.1", port: harness?.port ?? 0, apiKey: harness?.apiKey ?? "" }))
      .workspaces(root)
      .policies(
        auto({
          model: "gemini-3.5-flash-lite",
          handler: (call) => {
            asked.push(call.name);
            return true;
          },
        }),
        deny("run_command", "no shell here"),
        allowAll(),
      )
      .build()
      .start({ timeoutMs: 15_000 });
    try {
      const answer = await agent.chatToCompletion("build", { timeoutMs: 30_000 });
      expect(answer.text).toContain("no shell here"); // the specific rule decided, as without auto()
      expect(asked).toEqual([]); // nothing was assessed, so nothing was flagged or asked about
      const stderr = harness?.stderr().slice(before) ?? "";
      const warnings = stderr.split("\n").filter((line) => line.includes("policyConfig.autoConfig"));
      expect(warnings).toHaveLength(1);
      expect(sessionWarning(stderr)).toContain(
        "policyConfig.autoConfig (auto policy mode: no safety assessment here; the policy rules alone decide tool calls)",
      );
    } finally {
      await agent.stop();
    }
  });
});
