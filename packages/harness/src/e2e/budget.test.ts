import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { startFakeGeminiServer, type FakeModelServer } from "../providers/testing/index.js";
import { useHarnessFixture } from "../test-support/fixture.js";
import { finalSteps, harnessConfig, type Frame, type TestClient } from "../test-support/ws-client.js";

// Issue 10 item 2: BudgetConfig limits are session-level (protocol.md `BudgetConfig`): counted
// across turns and resumes, checked before every model call including a turn's first, the input
// limit before dispatch. Frames as upstream's client sends them: camelCase, enum names, int64 as
// decimal strings.

const ADD_TOOL = {
  name: "add",
  description: "Add",
  parametersJsonSchema: JSON.stringify({
    type: "object",
    properties: { a: { type: "integer" }, b: { type: "integer" } },
  }),
};
const SCRIPT = {
  turns: [
    { match: "tool", calls: [{ toolCalls: [{ name: "add", args: { a: 1, b: 2 } }] }, { text: "sum {{result.sum}}" }] },
    { match: "ping", calls: [{ text: "pong to {{prompt}}" }] },
  ],
};

/** What one turn showed: its end state, how many model steps and usage updates it had. */
interface TurnSummary {
  end: Frame;
  modelSteps: number;
  usageUpdates: number;
  frames: Frame[];
}

async function runTurn(client: TestClient, prompt: string, answerTools = false): Promise<TurnSummary> {
  client.prompt(prompt);
  let frames: Frame[];
  if (answerTools) {
    const before = await client.until(
      (f) =>
        f["toolCall"] !== undefined ||
        ["STATE_FULLY_IDLE", "STATE_CANCELLED"].includes(f["trajectoryStateUpdate"]?.state),
    );
    const call = before.at(-1)?.["toolCall"] as Frame | undefined;
    if (call !== undefined) client.send({ toolResponse: { id: call["id"], responseJson: '{"sum":3}' } });
    frames = call === undefined ? before : [...before, ...(await client.turn())];
  } else {
    frames = await client.turn();
  }
  return {
    end: frames.at(-1)?.["trajectoryStateUpdate"] as Frame,
    modelSteps: finalSteps(frames).filter(
      (s) => s.source === "SOURCE_MODEL" && (s.text !== undefined || s.thinking !== undefined),
    ).length,
    usageUpdates: frames.filter((f) => f["usageUpdate"] !== undefined).length,
    frames,
  };
}

const stopped = (reason: string): Frame => ({
  trajectoryId: expect.any(String),
  state: "STATE_FULLY_IDLE",
  stopReason: `STOP_REASON_${reason}`,
});
const idle: Frame = { trajectoryId: expect.any(String), state: "STATE_FULLY_IDLE" };

describe("session budgets (BudgetConfig)", () => {
  const fixture = useHarnessFixture({
    name: "budget",
    script: SCRIPT,
    args: (root) => ["--storage", path.join(root, "storage")],
  });
  const servers: FakeModelServer[] = [];
  afterAll(() => Promise.all(servers.map((server) => server.close())));

  it("maxModelCalls: 1 allows exactly one model call in the whole session: turn 2 stops before calling the model", async () => {
    const client = await fixture.connect({ budgetConfig: { maxModelCalls: 1 } });
    const first = await runTurn(client, "ping one");
    expect(first.end).toEqual(idle);
    expect(first.modelSteps).toBe(1);
    const second = await runTurn(client, "ping two");
    expect(second.end).toEqual(stopped("MAX_MODEL_CALLS_EXCEEDED"));
    expect(second.modelSteps).toBe(0);
    expect(second.usageUpdates).toBe(0);
    // The prompt is still shown as the turn's user step.
    expect(finalSteps(second.frames)).toMatchObject([{ source: "SOURCE_USER", text: "ping two" }]);
    client.close();
  });

  it('maxInputTokens: "50" stops a call of ~1,400 input tokens before it is dispatched: the model server gets no request', async () => {
    // Without a limit the same first call has well over 50 input tokens (the scripted model's count).
    const unlimited = await fixture.connect();
    const calibration = await runTurn(unlimited, "ping");
    const usage = calibration.frames.filter((f) => f["usageUpdate"] !== undefined).at(-1)?.["usageUpdate"]
      .total as Frame;
    expect(Number(usage["promptTokenCount"])).toBeGreaterThan(1000);
    unlimited.close();

    const server = await startFakeGeminiServer([{ type: "turn", text: "must not be asked" }]);
    servers.push(server);
    const client = await fixture.connect({
      budgetConfig: { maxInputTokens: "50" },
      models: [
        {
          name: "gemini-fake",
          types: ["MODEL_TYPE_TEXT"],
          geminiApiEndpoint: { baseUrl: server.baseUrl, apiKey: "fake-key" },
        },
      ],
    });
    const turn = await runTurn(client, "ping");
    expect(turn.end).toEqual(stopped("MAX_INPUT_TOKENS_EXCEEDED"));
    expect(turn.modelSteps).toBe(0);
    expect(server.requests).toHaveLength(0);
    client.close();
  });

  it("evaluates the input limit before each call of a turn: the first fits, the second would not and is never made", async () => {
    const calibrate = await fixture.connect({ tools: [ADD_TOOL] });
    const full = await runTurn(calibrate, "tool please", true);
    expect(full.modelSteps).toBe(1); // the text answer; the first call only called the tool
    const prompts = full.frames
      .filter((f) => f["usageUpdate"] !== undefined)
      .map((f) => Number(f["usageUpdate"].total.promptTokenCount));
    const firstCall = prompts[0] as number;
    calibrate.close();

    const client = await fixture.connect({
      tools: [ADD_TOOL],
      budgetConfig: { maxInputTokens: String(firstCall + 10) },
    });
    const turn = await runTurn(client, "tool please", true);
    expect(turn.end).toEqual(stopped("MAX_INPUT_TOKENS_EXCEEDED"));
    expect(turn.usageUpdates).toBe(1);
    expect(turn.frames.filter((f) => f["toolCall"] !== undefined)).toHaveLength(1);
    expect(finalSteps(turn.frames).some((s) => s.text === "sum 3")).toBe(false);
    client.close();
  });

  it("counts survive a restart and resume (LIFETIME); FORWARD_LOOKING counts from the resume", async () => {
    const cascadeId = "budget-resume-0123456789abcdef012345678";
    const budget = { maxModelCalls: 2, scope: "BUDGET_SCOPE_LIFETIME" };
    const first = await fixture.connect({ cascadeId, budgetConfig: budget });
    expect((await runTurn(first, "ping one")).end).toEqual(idle);
    first.close();
    await first.closed;

    await fixture.restart();
    const resume = async (budgetConfig: Frame): Promise<TestClient> => {
      const client = await fixture.open();
      await client.init(
        harnessConfig(fixture.workspace, { cascadeId, sessionContinuationMode: "RESUME", budgetConfig }),
      );
      return client;
    };
    const second = await resume(budget);
    expect((await runTurn(second, "ping two")).end).toEqual(idle);
    // Two calls in the session: a third is refused, though this process made only one.
    const third = await runTurn(second, "ping three");
    expect(third.end).toEqual(stopped("MAX_MODEL_CALLS_EXCEEDED"));
    expect(third.modelSteps).toBe(0);
    second.close();
    await second.closed;

    const forward = await resume({ maxModelCalls: 1, scope: "BUDGET_SCOPE_FORWARD_LOOKING" });
    expect((await runTurn(forward, "ping four")).end).toEqual(idle);
    expect((await runTurn(forward, "ping five")).end).toEqual(stopped("MAX_MODEL_CALLS_EXCEEDED"));
    forward.close();
  });

  it('maxToolCalls counts across turns; the calls it stops get a "not run" result and the turn its stop reason', async () => {
    const client = await fixture.connect({ tools: [ADD_TOOL], budgetConfig: { maxToolCalls: 1 } });
    const first = await runTurn(client, "tool please", true);
    expect(first.end).toEqual(idle);
    expect(finalSteps(first.frames).at(-1)?.["text"]).toBe("sum 3");
    const second = await runTurn(client, "tool again", true);
    expect(second.end).toEqual(stopped("MAX_TOOL_CALLS_EXCEEDED"));
    expect(second.frames.filter((f) => f["toolCall"] !== undefined)).toHaveLength(0);
    client.close();
  });
});
