import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Agent, ErrorCode, SdkError, WebSocketTransport, defineTool, isSyntheticToolStep } from "@antigravity-ts/sdk";
import { harnessEnv, killAllHarnesses, startListeningHarness, type ListeningHarness } from "@antigravity-ts/test-kit";

// The security issue's item 9 against the reference harness: the scripted model's call ids do not
// start from call_1 again in a resumed session, and after a turn halted while the model was still
// thinking, the next prompt is answered (not the halted one again).

const SCRIPT = fileURLToPath(new URL("./scripts/scripted-turns-script.json", import.meta.url));
const BOUND_MS = 30_000;

let workspace = "";
let harness: ListeningHarness;

beforeAll(async () => {
  workspace = await mkdtemp(path.join(tmpdir(), "antigravity-scripted-turns-"));
  harness = await startListeningHarness({
    env: harnessEnv(SCRIPT),
    workspace,
    apiKey: "scripted-turns-key-0123456789",
  });
});

afterAll(async () => {
  await killAllHarnesses();
  await rm(workspace, { recursive: true, force: true });
});

const add = defineTool({
  name: "add",
  description: "Adds two integers",
  parameters: { type: "object", properties: { a: { type: "integer" }, b: { type: "integer" } } },
  call: ({ a, b }: { a: number; b: number }) => ({ sum: a + b }),
});

const builder = () =>
  Agent.builder()
    .transport(new WebSocketTransport({ host: "127.0.0.1", port: harness.port, apiKey: harness.apiKey }))
    .workspaces(workspace)
    .tool(add)
    .allowAll();

describe("the scripted model across sessions and halts", () => {
  it("numbers a resumed session's calls past the ids its conversation already holds", async () => {
    const first = await builder().build().start({ timeoutMs: BOUND_MS });
    const ids: string[] = [];
    for (const prompt of ["add 2 and 3", "add them again"]) {
      const response = await first.chat(prompt).final();
      expect(response.text).toBe("the sum is 5");
      ids.push(...response.steps.filter(isSyntheticToolStep).map((s) => s.id));
    }
    expect(new Set(ids).size).toBe(2);
    await first.stop();

    const second = await builder()
      .conversationId(first.conversationId)
      .sessionContinuationMode("resume")
      .build()
      .start({ timeoutMs: BOUND_MS });
    const response = await second.chat("add once more").final();
    expect(response.text).toBe("the sum is 5");
    const later = response.steps.filter(isSyntheticToolStep).map((s) => s.id);
    expect(later).toHaveLength(1);
    expect(ids).not.toContain(later[0]);
    // The harness's own step of the call carries the same new id.
    expect(response.steps.some((s) => !isSyntheticToolStep(s) && s.toolCalls.some((c) => c.id === later[0]))).toBe(
      true,
    );
    await second.stop();
  }, 60_000);

  it("after a turn halted while the model was thinking, the next turn answers the new prompt", async () => {
    const agent = await builder().build().start({ timeoutMs: BOUND_MS });
    const stream = agent.chat("ponder this slowly");
    for await (const event of stream.events()) if (event.type === "thought") break;
    await stream.abort();
    const halted = await stream.final().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(halted).toBeInstanceOf(SdkError);
    expect((halted as SdkError).code).toBe(ErrorCode.Canceled);
    // The model said nothing yet: the halted prompt stays in the conversation, and the harness
    // gives the model both prompts as one message.
    expect((await agent.conversation().history()).some((s) => s.content.includes("pondered"))).toBe(false);
    const next = await agent.chatToCompletion("ping", { timeoutMs: BOUND_MS });
    expect(next.text).toBe("pong");
    await agent.stop();
  }, 60_000);
});
