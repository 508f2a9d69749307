import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  Agent,
  WebSocketTransport,
  allowAll,
  askUser,
  deny,
  type ChatEvent,
  type PolicyLike,
  type ToolCallLocation,
} from "@antigravity-ts/sdk";
import { harnessEnv, killAllHarnesses, startListeningHarness, type ListeningHarness } from "@antigravity-ts/test-kit";

// Issue 25 item 3 against the reference harness over a real socket: deny(reason) reaches the
// model and the step as written, whether the harness decides the rule (static) or asks the SDK
// (a predicate); an askUser handler gets the policy's reason, and a refusal reads it; without a
// policy reason the handler gets the harness's own (PolicyDecisionRequest.reason).

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

describe("policy reasons, end to end", () => {
  let root = "";
  let harness: ListeningHarness | undefined;

  beforeAll(async () => {
    root = await mkdtemp(path.join(tmpdir(), "antigravity-policy-reasons-"));
    await writeFile(path.join(root, "script.json"), JSON.stringify(SCRIPT));
    harness = await startListeningHarness({
      env: harnessEnv(path.join(root, "script.json")),
      workspace: root,
      apiKey: "policy-reasons-key-0123456789",
    });
  });

  afterAll(async () => {
    await harness?.stop();
    await killAllHarnesses();
    if (root !== "") await rm(root, { recursive: true, force: true });
  });

  /** One "build" turn under `policies`: the answer and the run_command call's error event. */
  async function turn(...policies: PolicyLike[]): Promise<{ text: string; error: string | undefined }> {
    const agent = await Agent.builder()
      .transport(new WebSocketTransport({ host: "127.0.0.1", port: harness?.port ?? 0, apiKey: harness?.apiKey ?? "" }))
      .workspaces(root)
      .policies(...policies)
      .build()
      .start({ timeoutMs: 15_000 });
    try {
      const events: ChatEvent[] = [];
      for await (const event of agent.chat("build it").events()) events.push(event);
      const failed = events.find((event) => event.type === "toolError");
      const text = events.flatMap((event) => (event.type === "text" ? [event.text] : [])).join("");
      return { text, error: failed?.type === "toolError" ? failed.error : undefined };
    } finally {
      await agent.stop();
    }
  }

  it("a static deny(reason): the harness's rule carries it to the model and the step", async () => {
    const { text, error } = await turn(deny("run_command", "no builds in CI"), allowAll());
    expect(error).toContain("no builds in CI");
    expect(text).toContain("no builds in CI");
  });

  it("a dynamic deny(reason) (a predicate the SDK decides) answers with the same reason", async () => {
    const { text, error } = await turn(
      deny("run_command", "make is off limits").when((call) => JSON.stringify(call.args).includes("make")),
      allowAll(),
    );
    expect(error).toContain("make is off limits");
    expect(text).toContain("make is off limits");
  });

  it("askUser: the handler gets where the call is and the policy's reason; a refusal reads that reason", async () => {
    const asked: [ToolCallLocation | undefined, string | undefined][] = [];
    const { text, error } = await turn(
      askUser(
        "run_command",
        (_call, where, reason) => {
          asked.push([where, reason]);
          return false;
        },
        { reason: "builds need a human" },
      ),
      allowAll(),
    );
    expect(asked).toHaveLength(1);
    expect(asked[0]?.[0]?.stepId).toMatch(/:\d+$/);
    expect(asked[0]?.[1]).toBe("builds need a human");
    expect(error).toContain("builds need a human");
    expect(text).toContain("builds need a human");
  });

  it("askUser without a reason: the handler gets the harness's reason (PolicyDecisionRequest.reason)", async () => {
    const reasons: (string | undefined)[] = [];
    const { error } = await turn(
      askUser("run_command", (_call, _where, reason) => {
        reasons.push(reason);
        return false;
      }),
      allowAll(),
    );
    // The reference harness says which rule matched and what it decides (packages/harness evaluate-policy.ts).
    expect(reasons).toEqual([
      'run_command matches policy rule "run_command" (asks the user about run_command), which the client decides',
    ]);
    expect(error).toContain("Denied by user (run_command).");
  });
});
