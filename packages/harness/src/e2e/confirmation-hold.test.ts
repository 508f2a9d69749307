import path from "node:path";
import { describe, expect, it } from "vitest";
import { useHarnessFixture } from "../test-support/fixture.js";
import { TestClient, finalSteps, harnessConfig, steps, type Frame } from "../test-support/ws-client.js";

// A session whose client leaves while a tool call waits for its confirmation (§8) is held: a
// client resuming the same cascadeId (§5) gets the WAITING step again and its toolConfirmation
// continues the same turn. Past the hold, or after a restart, the turn has ended cleanly with
// the call not confirmed, and a late confirmation is refused.

const SCRIPT = {
  turns: [
    {
      match: "confirm",
      calls: [
        { toolCalls: [{ name: "run_command", args: { CommandLine: "echo confirmed-$((40+2))" } }] },
        { text: "ran: {{result.output}}" },
      ],
    },
    { match: "ping", calls: [{ text: "pong to {{prompt}}" }] },
  ],
};
const ASK = {
  policyConfig: {
    rules: [{ tool: "run_command", decision: "POLICY_DECISION_ASK_USER", name: "ask", isDynamic: false, ruleId: "" }],
  },
};
const isWaiting = (f: Frame): boolean =>
  f["stepUpdate"]?.state === "STATE_WAITING_FOR_USER" && f["stepUpdate"]?.toolConfirmationRequest !== undefined;

describe("a pending confirmation survives a client disconnect", () => {
  const fixture = useHarnessFixture({
    name: "hold",
    script: SCRIPT,
    args: (root) => ["--storage", path.join(root, "storage")],
  });
  const resume = async (
    port: number,
    apiKey: string,
    cascadeId: string,
    mode = "RESUME",
  ): Promise<{ client: TestClient; init: Frame }> => {
    const client = await TestClient.connect(port, apiKey);
    const init = await client.init(
      harnessConfig(fixture.workspace, { ...ASK, cascadeId, sessionContinuationMode: mode }),
    );
    return { client, init };
  };
  /** Starts a turn that waits for a confirmation, then leaves; returns the waiting step. */
  const leaveWhileWaiting = async (port: number, apiKey: string, cascadeId: string): Promise<Frame> => {
    const { client } = await resume(port, apiKey, cascadeId, "CREATE_ONLY");
    client.prompt("confirm please");
    const waiting = (await client.next(isWaiting, "the WAITING_FOR_USER step"))["stepUpdate"] as Frame;
    client.close();
    await client.closed;
    return waiting;
  };

  it("continues the same turn when the client resumes the cascadeId and confirms", async () => {
    const { port, apiKey } = fixture.harness;
    const id = "hold-resume-0123456789abcdef0123456789";
    const waiting = await leaveWhileWaiting(port, apiKey, id);
    await fixture.harness.waitForStderr(/hold-res.*holding the turn for 600000 ms/);

    // A second connection that wants a new session under this id is refused; the hold is untouched.
    const intruder = await TestClient.connect(port, apiKey);
    intruder.send({
      config: harnessConfig(fixture.workspace, { cascadeId: id, sessionContinuationMode: "CREATE_ONLY" }),
    });
    expect((await intruder.closed).code).toBe(1008);

    const { client, init } = await resume(port, apiKey, id);
    expect(init["cascadeId"]).toBe(id);
    // The replayed history shows the step still waiting; then the step is sent again (§8).
    const replayed = (init["history"] as Frame[]).find((s) => s.stepIndex === waiting["stepIndex"]);
    expect(replayed).toMatchObject({ state: "STATE_WAITING_FOR_USER", toolConfirmationRequest: {} });
    const again = (await client.next(isWaiting, "the WAITING step sent again"))["stepUpdate"] as Frame;
    expect(again).toMatchObject({
      stepIndex: waiting["stepIndex"],
      trajectoryId: waiting["trajectoryId"],
      runCommand: { commandLine: "echo confirmed-$((40+2))" },
    });

    client.send({
      toolConfirmation: { trajectoryId: again["trajectoryId"], stepIndex: again["stepIndex"], accepted: true },
    });
    const rest = await client.turn();
    expect(rest.at(-1)?.["trajectoryStateUpdate"].state).toBe("STATE_FULLY_IDLE");
    const command = finalSteps(rest).find((s) => s.stepIndex === waiting["stepIndex"]) as Frame;
    expect(command).toMatchObject({ state: "STATE_DONE" });
    expect(command["runCommand"].combinedOutput).toContain("confirmed-42");
    expect(finalSteps(rest).at(-1)?.["text"]).toContain("confirmed-42");
    // The same connection goes on with the next turn.
    client.prompt("ping");
    expect(finalSteps(await client.turn()).at(-1)?.["text"]).toBe("pong to ping");
    client.close();
    await client.closed;
  });

  it("ends the turn with the call not confirmed once the hold expires; a late confirmation is refused and the session goes on", async () => {
    const harness = await fixture.start(["--confirmation-hold-ms", "50"]);
    const id = "hold-expire-0123456789abcdef0123456789";
    const waiting = await leaveWhileWaiting(harness.port, harness.apiKey, id);
    await harness.waitForStderr(/the turn held for a confirmation ends: not confirmed/);

    const { client, init } = await resume(harness.port, harness.apiKey, id);
    const ended = (init["history"] as Frame[]).find((s) => s.stepIndex === waiting["stepIndex"]) as Frame;
    expect(ended).toMatchObject({ state: "STATE_ERROR" });
    expect(ended["errorMessage"]).toMatch(
      /^not confirmed: the client left and did not resume the session within 50 ms/,
    );
    expect(ended["toolConfirmationRequest"]).toBeUndefined();
    client.send({
      toolConfirmation: { trajectoryId: waiting["trajectoryId"], stepIndex: waiting["stepIndex"], accepted: true },
    });
    const refusal = (await client.next((f) => f["stepUpdate"]?.state === "STATE_ERROR", "the refusal"))[
      "stepUpdate"
    ] as Frame;
    expect(refusal["errorMessage"]).toContain("not waiting for a confirmation");
    client.prompt("ping");
    expect(finalSteps(await client.turn()).at(-1)?.["text"]).toBe("pong to ping");
    client.close();
    await client.closed;
  });

  it("ends the held turn when the harness shuts down; after the restart the call reads as not confirmed", async () => {
    const id = "restart-0123456789abcdef0123456789abcd";
    const waiting = await leaveWhileWaiting(fixture.harness.port, fixture.harness.apiKey, id);
    await fixture.harness.waitForStderr(/restart-.*holding the turn/);
    expect(await fixture.restart()).toEqual({ code: 0, signal: null });

    const { client, init } = await resume(fixture.harness.port, fixture.harness.apiKey, id);
    const ended = (init["history"] as Frame[]).find((s) => s.stepIndex === waiting["stepIndex"]) as Frame;
    expect(ended).toMatchObject({ state: "STATE_ERROR", errorMessage: "not confirmed (the harness shut down)" });
    expect(steps(client.unread()).some(isWaitingStep)).toBe(false);
    client.prompt("ping");
    expect(finalSteps(await client.turn()).at(-1)?.["text"]).toBe("pong to ping");
    client.close();
    await client.closed;
  });

  it("does not hold the turn with --confirmation-hold-ms 0", async () => {
    const harness = await fixture.start(["--confirmation-hold-ms", "0"]);
    const id = "hold-zero-0123456789abcdef0123456789ab";
    const waiting = await leaveWhileWaiting(harness.port, harness.apiKey, id);
    // The id is freed once the ended turn is saved; RESUME waits for that (session-registry.ts).
    const { client, init } = await resume(harness.port, harness.apiKey, id);
    const ended = (init["history"] as Frame[]).find((s) => s.stepIndex === waiting["stepIndex"]) as Frame;
    expect(ended).toMatchObject({ state: "STATE_ERROR", errorMessage: "the client disconnected" });
    client.close();
    await client.closed;
  });
});

function isWaitingStep(step: Frame): boolean {
  return step["state"] === "STATE_WAITING_FOR_USER";
}
