import { create } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import type { ToolCall } from "../step.js";
import { decodeOutputEvent, PolicyConfigSchema, PolicyEvaluationOutcome, toJson } from "../wire/index.js";
import { evaluatePolicies } from "./evaluate.js";
import { askHandler, decidePolicyRequest, toPolicyConfig } from "./policy-config.js";
import { SdkError } from "../errors.js";
import { allow, askUser, auto, deny, type AskUserHandler, type ToolCallLocation } from "./policy.js";

// The cases of upstream's hooks/policy_test.py that are new since 0.1.14
// (Stars1233/antigravity-sdk-python google/antigravity/hooks/policy_test.py @32f169394d82cd0203522e35dfe4f00dd1fbb8de,
// against lovicho/antigravity-sdk-python's 0.1.14 version): 24 new cases.
//
// Upstream's in-process `_PolicyDecideHook` is this SDK's `evaluatePolicies` (static verdicts) plus
// `decidePolicyRequest` (dynamic rules the harness asks about, through the real frame codec);
// `_execute_ask_user` is `askHandler`; `_to_policy_config_proto` is `toPolicyConfig`, checked as the
// JSON the wire carries.
//
// Skipped, Python-only mechanics (5): test_handler_kwargs, test_execute_ask_user_var_kwargs,
// test_execute_ask_user_positional_only_reason, test_execute_ask_user_unrelated_keyword_only,
// test_execute_ask_user_no_signature_calls_without_reason — they test how `_execute_ask_user` reads
// a Python signature (`**kwargs`, `/`, keyword-only parameters, `inspect.signature` failing) to
// decide whether to pass `reason`. A JavaScript function takes extra arguments without any of this:
// here the reason is always the third argument (docs/upstream-differences.md, "reasons of ask-user
// policies"), and test_handler_1_arg / test_execute_ask_user_single_arg below cover a handler that
// ignores it.
//
// Ported (19): the cases below, each named after upstream's test function; the 9 of upstream's
// AutoPolicyTest and test_execute_ask_user_two_arg_auto_handler_receives_reason test `auto()`
// (AutoPolicy -> PolicyConfig.auto_config, localharness.proto @257f843a), whose flagged calls the
// harness asks about under rule id "auto" (upstream's `dynamic_policy_map["auto"]`).

const SOURCE = "Stars1233/antigravity-sdk-python google/antigravity/hooks/policy_test.py @32f16939";

const call = (name = "run_command", args: Record<string, unknown> = {}): ToolCall => ({ id: "1", name, args });

/** A policyDecisionRequest for `ruleId` as a harness writes it, through the real codec. */
function asked(reason?: string, ruleId = "rule_0") {
  const event = decodeOutputEvent(
    JSON.stringify({
      policyDecisionRequest: {
        requestId: "p",
        ruleId,
        toolArgs: { toolName: "run_command", argumentsJson: "{}" },
        ...(reason === undefined ? {} : { reason }),
      },
    }),
  );
  if (event.event.case !== "policyDecisionRequest") throw new Error("not a policyDecisionRequest");
  return event.event.value;
}

/** The policyConfig JSON the SDK puts on the wire. */
const wire = (policies: Parameters<typeof toPolicyConfig>[0]) =>
  toJson(PolicyConfigSchema, create(PolicyConfigSchema, toPolicyConfig(policies))) as {
    rules: { tool: string; name: string; decision: string; denyReason?: string; ruleId?: string }[];
    autoConfig?: { enabled?: boolean; model?: string };
  };

describe(`deny reasons (${SOURCE})`, () => {
  it("test_custom_reason_in_deny_policy: a deny policy's reason is the whole message", async () => {
    const policy = deny("run_command", "Custom security policy: shell execution forbidden.", { name: "block-cmd" });
    expect(await evaluatePolicies([policy], call())).toMatchObject({
      decision: "deny",
      reason: "Custom security policy: shell execution forbidden.",
    });
  });

  it("test_static_deny_with_reason: the reason travels as the rule's denyReason", () => {
    const policy = deny("run_command", "Shell access disabled.", { name: "block_cmd" });
    expect(policy.reason).toBe("Shell access disabled.");
    expect(wire([policy]).rules).toEqual([
      {
        tool: "run_command",
        name: "block_cmd",
        decision: "POLICY_DECISION_DENY",
        denyReason: "Shell access disabled.",
        isDynamic: false,
        ruleId: "",
      },
    ]);
  });

  it("test_ask_user_with_custom_reason: denyReason on the wire, the handler's reason, the refusal's text", async () => {
    const received: (string | undefined)[] = [];
    const policy = askUser(
      "run_command",
      (_call, _where, reason) => {
        received.push(reason);
        return false;
      },
      { reason: "Requires approval before modifying production state" },
    );
    expect(policy.reason).toBe("Requires approval before modifying production state");
    expect(wire([policy]).rules[0]?.denyReason).toBe("Requires approval before modifying production state");
    expect(await decidePolicyRequest([policy], asked())).toEqual({
      outcome: PolicyEvaluationOutcome.DENY,
      denyReason: "Requires approval before modifying production state",
    });
    expect(received).toEqual(["Requires approval before modifying production state"]);
  });
});

describe(`ask-user handlers and their reason (${SOURCE})`, () => {
  /** A handler that records the arguments it was called with. */
  function recording(answer: boolean): { handler: AskUserHandler; calls: unknown[][] } {
    const calls: unknown[][] = [];
    return {
      calls,
      handler: (...args) => {
        calls.push(args);
        return answer;
      },
    };
  }

  it("test_handler_1_arg: a handler that reads only the call gets it", async () => {
    const received: ToolCall[] = [];
    const policy = askUser("run_command", (tc) => {
      received.push(tc);
      return true;
    });
    const tc = call();
    expect(await askHandler(policy, tc, undefined)).toBe(true);
    expect(received).toEqual([tc]);
  });

  it("test_execute_ask_user_single_arg: a one-parameter handler works when a reason is given", async () => {
    const called: string[] = [];
    const policy = askUser("run_command", (tc) => {
      called.push(tc.name);
      return true;
    });
    expect(await askHandler(policy, call(), undefined, "Command is dangerous")).toBe(true);
    expect(called).toEqual(["run_command"]);
  });

  // Upstream binds `reason` as the handler's second positional or keyword parameter; here it is the
  // third argument, after `where` (docs/upstream-differences.md, "reasons of ask-user policies").
  it("test_handler_2_arg_with_reason: the handler gets the reason (third argument here)", async () => {
    const { handler, calls } = recording(true);
    const tc = call();
    expect(await askHandler(askUser("run_command", handler), tc, undefined, "test reason")).toBe(true);
    expect(calls).toEqual([[tc, undefined, "test reason"]]);
  });

  it("test_execute_ask_user_with_keyword_reason: the harness's reason reaches the handler", async () => {
    const { handler, calls } = recording(true);
    expect(await decidePolicyRequest([askUser("run_command", handler)], asked("Command is dangerous"))).toEqual({
      outcome: PolicyEvaluationOutcome.ALLOW,
    });
    expect(calls.map((args) => args[2])).toEqual(["Command is dangerous"]);
  });

  it("test_execute_ask_user_positional_two_args: the reason is positional (third here)", async () => {
    const received: (string | undefined)[] = [];
    const policy = askUser("run_command", (_tc, _where, r) => {
      received.push(r);
      return true;
    });
    expect(await askHandler(policy, call(), undefined, "Positional reason")).toBe(true);
    expect(received).toEqual(["Positional reason"]);
  });

  it("test_execute_ask_user_internal_type_error_propagates: a handler's own TypeError is thrown once", async () => {
    let count = 0;
    const policy = askUser("run_command", (): boolean => {
      count += 1;
      throw new TypeError("custom internal type error");
    });
    await expect(
      (async () => askHandler(policy, call(), undefined as ToolCallLocation | undefined, "test"))(),
    ).rejects.toThrow(new TypeError("custom internal type error"));
    expect(count).toBe(1);
  });

  // Upstream's hook answers `allow=False` with the error's text in its message; the harness's
  // question is answered DENY with `Policy evaluation error: <text>` (upstream's event processor).
  it("test_internal_type_error_not_swallowed: a handler's internal error denies with its message", async () => {
    const policy = askUser("run_command", (tc) => {
      // Like upstream's len(10): a TypeError raised inside the handler itself.
      const args = tc.args as Record<string, { length: number }>;
      return (args["missing"] as { length: number }).length > 0;
    });
    const answer = await decidePolicyRequest([policy], asked());
    expect(answer.outcome).toBe(PolicyEvaluationOutcome.DENY);
    expect(answer.denyReason).toMatch(/^Policy evaluation error: .*undefined/);
  });
});

describe(`auto policy mode (${SOURCE})`, () => {
  it("test_auto_defaults: every tool, DENY, no handler", () => {
    const p = auto();
    expect(p.auto).toBeDefined();
    expect(p.tool).toBe("*");
    expect(p.decision).toBe("deny");
    expect(p.handler).toBeUndefined();
    expect(p.name).toBe("auto");
  });

  it("test_auto_with_handler: a handler makes it ASK_USER", () => {
    const handler = () => true;
    const p = auto({ handler });
    expect(p.auto).toBeDefined();
    expect(p.decision).toBe("ask_user");
    expect(p.handler).toBe(handler);
  });

  // Upstream builds AutoPolicy(name=..., ask_user=..., model=...) directly; here auto() is the only constructor.
  it("test_auto_policy_direct_instantiation: name, handler and model as given", () => {
    const handler = () => true;
    const p = auto({ name: "my-auto", handler, model: "flash" });
    expect(p.auto?.model).toBe("flash");
    expect(p.name).toBe("my-auto");
    expect(p.decision).toBe("ask_user");
    expect(p.handler).toBe(handler);
  });

  it("test_auto_with_model: the model travels in autoConfig", () => {
    const p = auto({ model: "gemini-3.5-flash-lite" });
    expect(p.auto?.model).toBe("gemini-3.5-flash-lite");
    expect(wire([p]).autoConfig).toEqual({ enabled: true, model: "gemini-3.5-flash-lite" });
  });

  it("test_auto_to_proto: autoConfig enabled, no rule, and the harness's questions under 'auto' reach it", async () => {
    const config = wire([auto()]);
    expect(config.autoConfig?.enabled).toBe(true);
    expect(config.rules ?? []).toEqual([]); // JSON omits an empty list
    expect(await decidePolicyRequest([auto()], asked("flagged", "auto"))).toEqual({
      outcome: PolicyEvaluationOutcome.DENY,
      denyReason: "Denied by policy 'auto'.",
    });
    expect(await decidePolicyRequest([auto()], asked("flagged", "cortex_hook"))).toEqual({
      outcome: PolicyEvaluationOutcome.DENY,
      denyReason: "Unknown rule_id: cortex_hook",
    });
  });

  it("test_user_policy_named_auto_does_not_collide: a rule named 'auto' stays rule_0", async () => {
    const userRule = allow("run_command", { name: "auto", when: () => true });
    expect(userRule.auto).toBeUndefined();
    const policies = [userRule, auto()];
    const config = wire(policies);
    expect(config.autoConfig?.enabled).toBe(true);
    expect(config.rules).toHaveLength(1);
    expect(config.rules[0]).toMatchObject({ name: "auto", ruleId: "rule_0" });
    expect(await decidePolicyRequest(policies, asked(undefined, "rule_0"))).toEqual({
      outcome: PolicyEvaluationOutcome.ALLOW,
    });
    expect((await decidePolicyRequest(policies, asked(undefined, "auto"))).outcome).toBe(PolicyEvaluationOutcome.DENY);
    // The auto policy's own index is no rule id.
    expect(await decidePolicyRequest(policies, asked(undefined, "rule_1"))).toEqual({
      outcome: PolicyEvaluationOutcome.DENY,
      denyReason: "Unknown rule_id: rule_1",
    });
  });

  it("test_multiple_auto_policies_raises_error", () => {
    expect(() => toPolicyConfig([auto(), auto({ model: "gemini-2.5-flash" })])).toThrow(SdkError);
    expect(() => toPolicyConfig([auto(), auto({ model: "gemini-2.5-flash" })])).toThrow(
      /Multiple AutoPolicy rules found/,
    );
  });

  it("test_auto_skipped_in_in_process_enforce: the SDK's own evaluation leaves it to the harness", async () => {
    expect(await evaluatePolicies([auto()], call("run_command"))).toEqual({ decision: "allow" });
  });

  it("test_execute_ask_user_two_arg_auto_handler_receives_reason: the assessor's reason reaches the handler", async () => {
    const received: (string | undefined)[] = [];
    const p = auto({
      handler: (_tc, _where, reason) => {
        received.push(reason);
        return true;
      },
    });
    expect(await askHandler(p, call("run_command"), undefined, "Command is dangerous")).toBe(true);
    // And through the harness's question, as it asks about a call its auto mode flagged.
    expect(await decidePolicyRequest([p], asked("Command is dangerous", "auto"))).toEqual({
      outcome: PolicyEvaluationOutcome.ALLOW,
    });
    expect(received).toEqual(["Command is dangerous", "Command is dangerous"]);
  });
});
