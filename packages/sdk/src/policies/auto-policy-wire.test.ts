import { describe, expect, it } from "vitest";
import { buildHarnessConfig } from "../config/harness-config.js";
import { ErrorCode, SdkError } from "../errors.js";
import { encodeInitFrame } from "../wire/frame-codec.js";
import { initFrameForEra } from "../wire/index.js";
import { toPolicyConfig } from "./policy-config.js";
import { allowAll, askUser, auto, workspaceOnly, type Policy } from "./policy.js";

// auto() on the wire: the first frame carries `policyConfig.autoConfig` as upstream's
// local_connection.py @583e0413 sends it (_build_harness_config copies policy._to_policy_config_proto's
// PolicyConfig: AutoPolicyConfig(enabled=True, model=auto_policy.model or ""), hooks/policy.py,
// Stars1233/antigravity-sdk-python @32f16939; AutoPolicyConfig in localharness.proto @257f843a),
// and a 0.1.14 harness, which has no such field, is refused it.

/** The first frame an agent with (flattened) `policies` writes, as JSON. */
const firstFrame = (policies: Policy[]): Parameters<typeof initFrameForEra>[0] =>
  JSON.parse(encodeInitFrame(buildHarnessConfig({}, { policies })));

const sentPolicyConfig = (policies: Policy[]): unknown =>
  (firstFrame(policies)["config"] as { policyConfig?: unknown }).policyConfig;

describe("auto() in the first frame", () => {
  it("sends autoConfig { enabled: true, model: '' } and no rule for auto()", () => {
    expect(sentPolicyConfig([auto()])).toEqual({ autoConfig: { enabled: true, model: "" } });
  });

  it("sends the assessor's model, beside the other rules and workspace containment", () => {
    expect(sentPolicyConfig([auto({ model: "gemini-3.5-flash-lite" }), workspaceOnly(["/w"]), allowAll()])).toEqual({
      rules: [{ tool: "*", name: "allow_all", decision: "POLICY_DECISION_ALLOW", isDynamic: false, ruleId: "" }],
      workspaceContainment: "WORKSPACE_CONTAINMENT_ENABLED",
      autoConfig: { enabled: true, model: "gemini-3.5-flash-lite" },
    });
  });

  it("keeps rule ids the indices of the flattened list: a rule after auto() is rule_1", () => {
    const config = toPolicyConfig([auto(), askUser("run_command", () => true)]);
    expect(config.rules?.map((rule) => rule.ruleId)).toEqual(["rule_1"]);
  });

  it("is refused, naming the field and the era, by a 0.1.14 harness", () => {
    const frame = firstFrame([auto(), allowAll()]);
    let error: unknown;
    try {
      initFrameForEra(frame, "0.1.14");
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(SdkError);
    expect((error as SdkError).code).toBe(ErrorCode.Unsupported);
    expect((error as SdkError).message).toContain("autoConfig");
    expect((error as SdkError).message).toContain("0.1.14");
  });
});

describe("auto() arguments", () => {
  it("refuses when(...): the assessment chooses the calls it flags", () => {
    expect(() => auto().when(() => true)).toThrow(/auto\(\) takes no when/);
    expect(() =>
      auto({ model: "m" })
        .withName("mine")
        .when(() => true),
    ).toThrow(/auto\(\) takes no when/);
    expect(auto({ model: "m" }).withName("mine")).toMatchObject({ name: "mine", auto: { model: "m" } });
  });

  it("refuses an empty or non-string model with InvalidArgument", () => {
    for (const model of ["", "  ", 7 as unknown as string]) {
      let error: unknown;
      try {
        auto({ model });
      } catch (caught) {
        error = caught;
      }
      expect(error, String(model)).toMatchObject({ code: ErrorCode.InvalidArgument });
    }
  });
});
