import { access, mkdir, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { useHarnessFixture } from "../test-support/fixture.js";
import { finalSteps, harnessConfig, steps, type Frame } from "../test-support/ws-client.js";

// Confirmations (§8), questions (§9), hook RPCs (§10) and policies (§12), over a real socket.

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
    {
      match: "command",
      calls: [
        { toolCalls: [{ name: "run_command", args: { CommandLine: "echo ran > ran.txt; echo ok" } }] },
        { text: "{{result}}" },
      ],
    },
    { match: "add", calls: [{ toolCalls: [{ name: "add", args: { a: 1, b: 2 } }] }, { text: "{{result}}" }] },
    {
      match: "ask",
      calls: [
        {
          toolCalls: [
            { name: "ask_question", args: { questions: [{ question: "Color?", choices: ["red", "blue"] }] } },
          ],
        },
        { text: "{{result}}" },
      ],
    },
    {
      match: "list",
      calls: [
        { toolCalls: [{ name: "list_directory", args: { directory_path: "." } }] },
        { text: "listed {{result.directory}}" },
      ],
    },
  ],
};
const rule = (tool: string, decision: string, extra: Frame = {}): Frame => ({
  tool,
  decision: `POLICY_DECISION_${decision}`,
  name: `${tool}-${decision}`,
  isDynamic: false,
  ruleId: "",
  ...extra,
});
const isHook =
  (type: string) =>
  (f: Frame): boolean =>
    f["callHookRequest"]?.type === `LIFECYCLE_HOOK_${type}`;

describe("control: confirmations, questions, hooks, policies", () => {
  const fixture = useHarnessFixture({
    name: "control",
    script: SCRIPT,
    config: { tools: [ADD_TOOL] },
    prepare: async (_root, workspace) => {
      await mkdir(path.join(workspace, "sub"));
      await writeFile(path.join(workspace, "sub", "inner.txt"), "x");
    },
  });
  const connect = fixture.connect;
  const exists = (file: string): Promise<boolean> =>
    access(path.join(fixture.workspace, file)).then(
      () => true,
      () => false,
    );

  for (const accepted of [true, false]) {
    it(`asks for confirmation when a static rule says ASK_USER, and ${accepted ? "runs" : "refuses"} the command`, async () => {
      await rm(path.join(fixture.workspace, "ran.txt"), { force: true });
      const client = await connect({ policyConfig: { rules: [rule("*", "ALLOW"), rule("run_command", "ASK_USER")] } });
      client.prompt("command");
      const waiting = await client.until(
        (f) => f["stepUpdate"]?.state === "STATE_WAITING_FOR_USER",
        "a WAITING_FOR_USER step",
      );
      const step = waiting[waiting.length - 1]?.["stepUpdate"] as Frame;
      expect(step).toMatchObject({
        source: "SOURCE_MODEL",
        target: "TARGET_USER",
        toolConfirmationRequest: {},
        runCommand: { commandLine: "echo ran > ran.txt; echo ok" },
      });
      // Re-sent at least twice so clients exercise their debounce (§8).
      const again = await client.next(
        (f) => f["stepUpdate"]?.stepIndex === step["stepIndex"],
        "the repeated WAITING step",
      );
      expect(again["stepUpdate"]).toEqual(step);
      expect(await exists("ran.txt")).toBe(false);
      client.send({ toolConfirmation: { trajectoryId: step["trajectoryId"], stepIndex: step["stepIndex"], accepted } });
      const final = finalSteps(await client.turn()).find((s) => s.stepIndex === step["stepIndex"]) as Frame;
      if (accepted) {
        expect(final).toMatchObject({ state: "STATE_DONE", runCommand: { exitCode: 0, combinedOutput: "ok\n" } });
        expect(final["toolConfirmationRequest"]).toBeUndefined();
        expect(await exists("ran.txt")).toBe(true);
      } else {
        expect(final).toMatchObject({ state: "STATE_ERROR", errorMessage: "denied by user" });
        expect(await exists("ran.txt")).toBe(false);
        expect(finalSteps(client.frames).at(-1)?.["text"]).toBe('{"error":"denied by user"}');
      }
      client.close();
    });
  }

  it("asks for run_command in AGENT_BEHAVIOR_INTERACTIVE without any policy", async () => {
    const client = await connect({ agentBehavior: "AGENT_BEHAVIOR_INTERACTIVE" });
    client.prompt("command");
    const waiting = await client.next((f) => f["stepUpdate"]?.state === "STATE_WAITING_FOR_USER");
    client.send({
      toolConfirmation: {
        trajectoryId: waiting["stepUpdate"].trajectoryId,
        stepIndex: waiting["stepUpdate"].stepIndex,
        accepted: true,
      },
    });
    expect(finalSteps(await client.turn()).find((s) => s.runCommand)?.["state"]).toBe("STATE_DONE");
    client.close();
  });

  it("applies static rules with the 9-level precedence: a specific deny beats an earlier '*' allow", async () => {
    const client = await connect({
      policyConfig: { rules: [rule("*", "ALLOW"), rule("run_command", "DENY", { denyReason: "no shell" })] },
    });
    client.prompt("command");
    const turn = await client.turn();
    expect(finalSteps(turn).find((s) => s.runCommand)).toMatchObject({
      state: "STATE_ERROR",
      errorMessage: "denied by policy: no shell",
    });
    expect(steps(turn).some((s) => s.state === "STATE_WAITING_FOR_USER")).toBe(false);
    client.close();
  });

  it("asks the client about dynamic rules and honours ALLOW, DENY and NO_MATCH", async () => {
    const rules = [
      rule("add", "DENY", { isDynamic: true, ruleId: "rule_0" }),
      rule("*", "DENY", { name: "fallback", denyReason: "fallback deny" }),
    ];
    const client = await connect({ policyConfig: { rules } });
    const expectations: [string, Frame, RegExp | null][] = [
      ["POLICY_EVALUATION_OUTCOME_DENY", { denyReason: "too big" }, /^denied by policy: too big$/],
      ["POLICY_EVALUATION_OUTCOME_NO_MATCH", {}, /^denied by policy: fallback deny$/],
      ["POLICY_EVALUATION_OUTCOME_ALLOW", {}, null],
    ];
    for (const [outcome, extra, denied] of expectations) {
      client.prompt("add");
      const request = (await client.next((f) => f["policyDecisionRequest"] !== undefined, "policyDecisionRequest"))[
        "policyDecisionRequest"
      ] as Frame;
      const step = finalSteps(client.frames).find((s) => s.customTool && s.state === "STATE_ACTIVE") as Frame;
      expect(request).toMatchObject({
        ruleId: "rule_0",
        reason: 'add matches policy rule "add-DENY" (denies add), which the client decides',
        toolArgs: {
          toolName: "add",
          argumentsJson: '{"a":1,"b":2}',
          trajectoryId: step["trajectoryId"],
          stepIndex: step["stepIndex"],
        },
      });
      client.send({ policyDecisionResponse: { requestId: request["requestId"], outcome, ...extra } });
      if (denied === null) {
        const call = await client.next((f) => f["toolCall"] !== undefined, "toolCall");
        client.send({ toolResponse: { id: call["toolCall"].id, responseJson: '{"sum":3}' } });
      }
      const turn = await client.turn();
      const tool = finalSteps(turn).find((s) => s.customTool) as Frame;
      if (denied === null) expect(tool["state"]).toBe("STATE_DONE");
      else {
        expect(tool["errorMessage"]).toMatch(denied);
        expect(turn.some((f) => f["toolCall"] !== undefined)).toBe(false);
      }
    }
    client.close();
  });

  it("gives a dynamic rule's own reason as the request's reason, and a 0.1.14 client no reason field", async () => {
    const rules = [
      rule("add", "ASK_USER", { isDynamic: true, ruleId: "rule_0", denyReason: "sums need a human" }),
      rule("*", "ALLOW"),
    ];
    for (const era of ["0.1.19", "0.1.14"] as const) {
      const client = await connect({
        policyConfig: { rules },
        // A 0.1.14 client names the template of its instructions templateName (its first frame shows its era).
        ...(era === "0.1.14"
          ? { systemInstructions: { custom: { part: [{ template: { templateName: "identity" } }] } } }
          : {}),
      });
      client.prompt("add");
      const request = (await client.next((f) => f["policyDecisionRequest"] !== undefined, "policyDecisionRequest"))[
        "policyDecisionRequest"
      ] as Frame;
      if (era === "0.1.19") expect(request["reason"]).toBe("sums need a human");
      else expect("reason" in request).toBe(false);
      expect(request["ruleId"]).toBe("rule_0");
      client.send({
        policyDecisionResponse: { requestId: request["requestId"], outcome: "POLICY_EVALUATION_OUTCOME_NO_MATCH" },
      });
      const call = await client.next((f) => f["toolCall"] !== undefined, "toolCall");
      client.send({ toolResponse: { id: call["toolCall"].id, responseJson: '{"sum":3}' } });
      await client.turn();
      client.close();
    }
  });

  it("asks questions with questionsRequest and passes the answers to the model", async () => {
    const client = await connect();
    client.prompt("ask me");
    const waiting = (await client.next((f) => f["stepUpdate"]?.state === "STATE_WAITING_FOR_USER"))[
      "stepUpdate"
    ] as Frame;
    expect(waiting["questionsRequest"]).toEqual({
      questions: [{ multipleChoice: { question: "Color?", choices: ["red", "blue"], isMultiSelect: false } }],
    });
    client.send({
      questionResponse: {
        trajectoryId: waiting["trajectoryId"],
        stepIndex: waiting["stepIndex"],
        response: { answers: [{ multipleChoiceAnswer: { selectedChoiceIndices: [1], freeformResponse: "navy" } }] },
      },
    });
    const final = finalSteps(await client.turn());
    expect(final.find((s) => s.stepIndex === waiting["stepIndex"])?.["state"]).toBe("STATE_DONE");
    expect(JSON.parse(final.at(-1)?.["text"])).toEqual({
      answers: [{ question: "Color?", selected: ["blue"], freeform: "navy" }],
    });
    client.close();
  });

  it("calls the enabled hooks at the right moments; PRE_TOOL may rewrite the arguments", async () => {
    const hooks = ["ON_SESSION_START", "PRE_TURN", "PRE_TOOL", "POST_TOOL", "POST_TURN", "ON_SESSION_END"].map(
      (h) => `LIFECYCLE_HOOK_${h}`,
    );
    const client = await fixture.open();
    await client.init(harnessConfig(fixture.workspace, { enabledHooks: hooks }));
    const start = (await client.next(isHook("ON_SESSION_START")))["callHookRequest"] as Frame;
    expect(start).toMatchObject({ name: "OnSessionStart" });
    client.prompt("list");
    // The turn waits for the session-start hook, then for PRE_TURN.
    client.send({ callHookResponse: { requestId: start["requestId"], emptyResult: {} } });
    const preTurn = (await client.next(isHook("PRE_TURN")))["callHookRequest"] as Frame;
    expect(preTurn["preTurnArgs"]).toMatchObject({ userInput: { parts: [{ text: "list" }] } });
    expect(client.unread()).toEqual([]);
    client.send({ callHookResponse: { requestId: preTurn["requestId"], preTurnResult: { decision: "ALLOW" } } });
    const beforeTool = await client.until(isHook("PRE_TOOL"));
    expect(beforeTool[0]?.["trajectoryStateUpdate"]?.state).toBe("STATE_RUNNING");
    const preTool = beforeTool.at(-1)?.["callHookRequest"] as Frame;
    const toolStep = finalSteps(client.frames).find((s) => s.listDirectory) as Frame;
    expect(preTool["preToolArgs"]).toEqual({
      toolName: "list_directory",
      argumentsJson: '{"directory_path":"."}',
      callId: expect.any(String),
      trajectoryId: toolStep["trajectoryId"],
      stepIndex: toolStep["stepIndex"],
    });
    client.send({
      callHookResponse: {
        requestId: preTool["requestId"],
        preToolResult: { decision: "ALLOW", modifiedArgumentsJson: '{"directory_path":"sub"}' },
      },
    });
    const postTool = (await client.next(isHook("POST_TOOL")))["callHookRequest"] as Frame;
    expect(postTool["postToolArgs"]).toMatchObject({
      toolName: "list_directory",
      callId: preTool["preToolArgs"].callId,
      stepIndex: toolStep["stepIndex"],
    });
    expect(JSON.parse(postTool["postToolArgs"].result)).toMatchObject({
      directory: "sub",
      results: [{ name: "inner.txt", is_directory: false, file_size: 1 }],
    });
    expect(finalSteps(client.frames).find((s) => s.listDirectory)?.["listDirectory"].directoryPath).toMatch(/\/sub$/);
    client.send({ callHookResponse: { requestId: postTool["requestId"], emptyResult: {} } });
    const postTurn = (await client.next(isHook("POST_TURN")))["callHookRequest"] as Frame;
    expect(postTurn["postTurnArgs"]).toEqual({ responseText: "listed sub", trajectoryId: toolStep["trajectoryId"] });
    expect(client.unread().some((f) => f["trajectoryStateUpdate"]?.state === "STATE_FULLY_IDLE")).toBe(false);
    client.send({ callHookResponse: { requestId: postTurn["requestId"], emptyResult: {} } });
    await client.turn();

    client.send({ sessionEndRequest: true });
    const end = (await client.next(isHook("ON_SESSION_END")))["callHookRequest"] as Frame;
    client.send({ callHookResponse: { requestId: end["requestId"], emptyResult: {} } });
    expect((await client.next((f) => f["sessionEndResponse"] !== undefined))["sessionEndResponse"]).toBe(true);
    client.close();
  });

  it("cancels the turn when PRE_TURN denies, with the reason as error", async () => {
    const client = await fixture.open();
    await client.init(harnessConfig(fixture.workspace, { enabledHooks: ["LIFECYCLE_HOOK_PRE_TURN"] }));
    client.prompt("list");
    const preTurn = (await client.next(isHook("PRE_TURN")))["callHookRequest"] as Frame;
    client.send({
      callHookResponse: { requestId: preTurn["requestId"], preTurnResult: { decision: "DENY", reason: "not today" } },
    });
    const turn = await client.turn();
    expect(turn).toHaveLength(1);
    expect(turn[0]?.["trajectoryStateUpdate"]).toMatchObject({ state: "STATE_CANCELLED", error: "not today" });
    client.close();
  });

  it("blocks a call the PRE_TOOL hook denies, and lets ON_TOOL_ERROR replace the error the model sees", async () => {
    const client = await connect({ enabledHooks: ["LIFECYCLE_HOOK_PRE_TOOL", "LIFECYCLE_HOOK_ON_TOOL_ERROR"] });
    client.prompt("list");
    const preTool = (await client.next(isHook("PRE_TOOL")))["callHookRequest"] as Frame;
    client.send({
      callHookResponse: {
        requestId: preTool["requestId"],
        preToolResult: { decision: "DENY", reason: "read-only day" },
      },
    });
    const denied = finalSteps(await client.turn());
    expect(denied.find((s) => s.listDirectory)).toMatchObject({
      state: "STATE_ERROR",
      errorMessage: "denied by the PRE_TOOL hook: read-only day",
    });

    client.prompt("add");
    const allow = (await client.next(isHook("PRE_TOOL")))["callHookRequest"] as Frame;
    client.send({ callHookResponse: { requestId: allow["requestId"], preToolResult: { decision: "ALLOW" } } });
    const call = await client.next((f) => f["toolCall"] !== undefined);
    client.send({ toolResponse: { id: call["toolCall"].id, errorMessage: "overflow" } });
    const onError = (await client.next(isHook("ON_TOOL_ERROR")))["callHookRequest"] as Frame;
    expect(onError["onToolErrorArgs"]).toMatchObject({
      toolName: "add",
      errorMessage: "overflow",
      callId: call["toolCall"].id,
    });
    client.send({
      callHookResponse: {
        requestId: onError["requestId"],
        onToolErrorResult: { customErrorMessage: "the adder is resting" },
      },
    });
    await client.turn();
    const final = finalSteps(client.frames);
    expect(final.find((s) => s.customTool)?.["errorMessage"]).toBe("overflow");
    expect(final.at(-1)?.["text"]).toBe('{"error":"the adder is resting"}');
    client.close();
  });
});
