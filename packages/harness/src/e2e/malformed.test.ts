import { describe, expect, it } from "vitest";
import { useHarnessFixture } from "../test-support/fixture.js";
import { finalSteps, harnessConfig, steps, type Frame, type TestClient } from "../test-support/ws-client.js";

// Bad input gets a clear error (an ERROR step or a close with a reason) and never harms the
// process or other sessions.

const SCRIPT = {
  turns: [
    { match: "ping", calls: [{ text: "pong to {{prompt}}" }] },
    { match: "tool", calls: [{ toolCalls: [{ name: "$client", args: {} }] }, { text: "tool done" }] },
  ],
};
const WAIT_TOOL = {
  name: "wait",
  description: "Waits for the client",
  parametersJsonSchema: JSON.stringify({ type: "object", properties: {} }),
};

describe("malformed input", () => {
  const fixture = useHarnessFixture({ name: "malformed", script: SCRIPT });
  const connect = fixture.open;
  const errorStep = async (client: TestClient): Promise<Frame> =>
    (await client.next((f) => f["stepUpdate"]?.state === "STATE_ERROR", "an ERROR step"))["stepUpdate"] as Frame;

  it("closes a connection whose first frame is not an InitializeConversationEvent", async () => {
    const early = await connect();
    early.send({ userInput: { parts: [{ text: "ping" }] } });
    expect(await early.closed).toEqual({
      code: 1008,
      reason: 'expected InitializeConversationEvent {"config": …} as the first frame, got {userInput}',
    });

    const garbage = await connect();
    garbage.sendRaw("{not json");
    expect(await garbage.closed).toMatchObject({ code: 1007 });

    const wrongType = await connect();
    wrongType.send({ config: { compactionThreshold: "lots" } });
    const closed = await wrongType.closed;
    expect(closed.code).toBe(1007);
    expect(closed.reason).toMatch(/^invalid HarnessConfig/);

    const binary = await connect();
    binary.sendRaw(Buffer.from(JSON.stringify({ config: {} })), true);
    expect(await binary.closed).toMatchObject({
      code: 1003,
      reason: expect.stringContaining("binary frames are not supported"),
    });
  });

  it("answers bad frames with SOURCE_SYSTEM ERROR steps; the session and other sessions go on", async () => {
    const other = await connect();
    await other.init(harnessConfig(fixture.workspace));
    const client = await connect();
    const init = await client.init(harnessConfig(fixture.workspace));

    client.sendRaw("this is not json");
    const notJson = await errorStep(client);
    expect(notJson).toMatchObject({
      source: "SOURCE_SYSTEM",
      state: "STATE_ERROR",
      cascadeId: init["cascadeId"],
      trajectoryId: init["cascadeId"],
    });
    expect(notJson["error"].errorMessage).toContain("frame is not JSON");
    expect(notJson["errorMessage"]).toBe(notJson["error"].errorMessage);

    client.send({ bogusEvent: { x: 1 } });
    expect((await errorStep(client))["error"].errorMessage).toContain("carries no known InputEvent (keys: bogusEvent)");

    client.send({ toolResponse: { id: "nope", responseJson: "{}" } });
    expect((await errorStep(client))["error"].errorMessage).toBe('toolResponse for unknown tool call id "nope"');

    client.send({ toolConfirmation: { trajectoryId: init["cascadeId"], stepIndex: "three", accepted: true } });
    expect((await errorStep(client))["error"].errorMessage).toContain("could not decode the frame");

    client.send({ callHookResponse: { requestId: "hook-99", emptyResult: {} } });
    expect((await errorStep(client))["error"].errorMessage).toContain("unknown requestId");

    // Oversized prompt: refused with an ERROR step and a FULLY_IDLE carrying the error; no turn runs.
    client.prompt("p".repeat(1024 * 1024 + 1));
    const refused = await client.until((f) => f["trajectoryStateUpdate"] !== undefined);
    expect(steps(refused).at(-1)?.["error"].errorMessage).toBe(
      `prompt of ${1024 * 1024 + 1} bytes refused: the limit is ${1024 * 1024} bytes`,
    );
    expect(refused.at(-1)?.["trajectoryStateUpdate"]).toMatchObject({
      state: "STATE_FULLY_IDLE",
      error: expect.stringContaining("refused"),
    });

    client.send({ userInput: { parts: [] } });
    const noParts = await client.until((f) => f["trajectoryStateUpdate"] !== undefined);
    expect(noParts.at(-1)?.["trajectoryStateUpdate"].error).toBe(
      "userInput without parts refused: send at least one text part",
    );
    // A whitespace-only prompt is legal (upstream sends " ", §6.1).
    client.prompt(" ");
    expect(finalSteps(await client.turn()).at(-1)?.["text"]).toBe(
      '(scripted model) No scripted reply matches the prompt " ".',
    );

    // Still alive: unknown fields are ignored, and the older string form of userInput is accepted.
    client.send({ userInput: { parts: [{ text: "ping" }], someFutureField: true }, anotherUnknown: 1 });
    expect(finalSteps(await client.turn()).at(-1)?.["text"]).toBe("pong to ping");
    client.send({ userInput: "ping legacy" });
    expect(finalSteps(await client.turn()).at(-1)?.["text"]).toBe("pong to ping legacy");

    other.prompt("ping from the other session");
    const otherTurn = await other.turn();
    expect(finalSteps(otherTurn).at(-1)?.["text"]).toBe("pong to ping from the other session");
    expect(steps(otherTurn).some((s) => s.state === "STATE_ERROR")).toBe(false);

    client.sendRaw(Buffer.from([1, 2, 3]), true);
    expect((await client.closed).code).toBe(1003);
    other.prompt("ping again");
    expect(finalSteps(await other.turn()).at(-1)?.["text"]).toBe("pong to ping again");
    expect(fixture.harness.child.exitCode).toBeNull();
    other.close();
  });

  it("reports a prompt refused during a turn after that turn, in the place of its own", async () => {
    const client = await fixture.open();
    const init = await client.init(harnessConfig(fixture.workspace, { tools: [WAIT_TOOL] }));
    client.prompt("tool");
    const call = (await client.next((f) => f["toolCall"] !== undefined, "toolCall"))["toolCall"] as Frame;
    client.send({ userInput: { parts: [] } });
    client.prompt("ping queued");
    client.send({ toolResponse: { id: call["id"], responseJson: "{}" } });

    const running = await client.turn();
    expect(running.at(-1)?.["trajectoryStateUpdate"]).toEqual({
      trajectoryId: init["cascadeId"],
      state: "STATE_FULLY_IDLE",
    });
    expect(finalSteps(running).at(-1)?.["text"]).toBe("tool done");
    expect(steps(running).some((s) => s.source === "SOURCE_SYSTEM")).toBe(false);
    const refused = await client.turn();
    expect(refused).toHaveLength(2);
    expect(refused[0]?.["stepUpdate"]).toMatchObject({
      source: "SOURCE_SYSTEM",
      state: "STATE_ERROR",
      errorMessage: "userInput without parts refused: send at least one text part",
    });
    expect(refused[1]?.["trajectoryStateUpdate"]).toEqual({
      trajectoryId: init["cascadeId"],
      state: "STATE_FULLY_IDLE",
      error: "userInput without parts refused: send at least one text part",
    });
    expect(finalSteps(await client.turn()).at(-1)?.["text"]).toBe("pong to ping queued");
    client.close();
  });
});
