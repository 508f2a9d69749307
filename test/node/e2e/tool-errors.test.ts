import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Agent, StepStatus, WebSocketTransport, allowAll, defineTool, deny, type ChatEvent } from "@antigravity-ts/sdk";
import { harnessEnv, killAllHarnesses, startListeningHarness, type ListeningHarness } from "@antigravity-ts/test-kit";

// Issue 25 item 3, upstream 0.1.19's "Resilient Tool Call Error Handling" (CHANGELOG.md,
// Stars1233 @1493021c): a failing tool and calls denied before they run (a policy, a PRE_TOOL hook)
// are step-level tool errors; their messages never reach the assistant's text, and the calls
// made beside them in the same model call still run and are answered.

const SCRIPT = {
  turns: [
    {
      match: "all four",
      calls: [
        {
          text: "Calling four tools.",
          toolCalls: [
            { name: "boom", args: {} },
            { name: "ok", args: { n: 2 } },
            { name: "blocked", args: {} },
            { name: "run_command", args: { CommandLine: "echo never" } },
          ],
        },
        { text: "done: {{results.ok}}" },
      ],
    },
  ],
};

const FAILURE = "disk on fire";
const HOOK_DENIAL = "blocked by the hook";
const POLICY_DENIAL = "no shell in this test";

const boom = defineTool({
  name: "boom",
  description: "Always fails",
  parameters: { type: "object", properties: {} },
  call: () => {
    throw new Error(FAILURE);
  },
});
const ok = defineTool({
  name: "ok",
  description: "Doubles n",
  parameters: { type: "object", properties: { n: { type: "integer" } } },
  call: ({ n }: { n: number }) => ({ doubled: n * 2 }),
});
const blocked = defineTool({
  name: "blocked",
  description: "Denied by the PRE_TOOL hook",
  parameters: { type: "object", properties: {} },
  call: () => ({ ran: true }),
});

describe("tool failures and pre-tool denials (reference harness)", () => {
  let root = "";
  let harness: ListeningHarness | undefined;

  beforeAll(async () => {
    root = await mkdtemp(path.join(tmpdir(), "antigravity-tool-errors-"));
    await writeFile(path.join(root, "script.json"), JSON.stringify(SCRIPT));
    harness = await startListeningHarness({
      env: harnessEnv(path.join(root, "script.json")),
      workspace: root,
      apiKey: "tool-errors-key-0123456789",
    });
  });

  afterAll(async () => {
    await harness?.stop();
    await killAllHarnesses();
    if (root !== "") await rm(root, { recursive: true, force: true });
  });

  it("are tool errors of their own calls, out of the assistant's text, and the sibling call runs", async () => {
    let blockedRan = false;
    const agent = await Agent.builder()
      .transport(new WebSocketTransport({ host: "127.0.0.1", port: harness?.port ?? 0, apiKey: harness?.apiKey ?? "" }))
      .workspaces(root)
      .tool(boom, ok, {
        ...blocked,
        call: () => {
          blockedRan = true;
          return { ran: true };
        },
      })
      .hook({ preToolCall: (call) => (call.name === "blocked" ? { allow: false, reason: HOOK_DENIAL } : undefined) })
      .policies(deny("run_command", POLICY_DENIAL), allowAll())
      .build()
      .start({ timeoutMs: 15_000 });
    try {
      const stream = agent.chat("call all four");
      const events: ChatEvent[] = [];
      for await (const event of stream.events()) events.push(event);
      const response = await stream.final();

      const errors = new Map(
        events.flatMap((event) => (event.type === "toolError" ? [[event.toolCall.name, event.error] as const] : [])),
      );
      expect(errors.get("boom")).toContain(FAILURE);
      expect(errors.get("blocked")).toContain(HOOK_DENIAL);
      expect(errors.get("run_command")).toContain(POLICY_DENIAL);
      expect(errors.has("ok")).toBe(false);
      const results = events.flatMap((event) => (event.type === "toolResult" ? [event] : []));
      expect(results.map((event) => event.toolCall.name)).toEqual(["ok"]);
      expect(results[0]?.result).toEqual({ doubled: 4 });
      expect(blockedRan).toBe(false);

      // The assistant's text is the model's only: no error message leaks into it.
      expect(response.text).toBe('Calling four tools.done: {"doubled":4}');
      for (const message of [FAILURE, HOOK_DENIAL, POLICY_DENIAL]) {
        expect(response.text).not.toContain(message);
        for (const block of response.textBlocks) expect(block.text).not.toContain(message);
      }
      // Each failure is its call's step in ERROR, with the message in `error`; no step is both.
      const failedSteps = response.steps.filter((step) => step.status === StepStatus.Error);
      for (const name of ["boom", "blocked", "run_command"]) {
        const step = failedSteps.find((s) => s.toolCalls.some((call) => call.name === name));
        expect(step?.error, name).not.toBe("");
        expect(step?.content ?? "", name).not.toContain(step?.error ?? "");
      }
      expect(response.stopReason).toBeUndefined();
    } finally {
      await agent.stop();
    }
  });
});
