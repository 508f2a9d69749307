import { describe, expect, it } from "vitest";
import { buildHarnessConfig } from "../config/harness-config.js";
import {
  decodeOutputEvent,
  encodeInputEvent,
  HarnessConfigSchema,
  InputEventSchema,
  create,
  toJson,
  type CallHookRequest,
} from "../wire/index.js";
import type { StopArgs } from "./hook.js";
import { HookRunner } from "./hook-runner.js";

// Upstream's LocalConnectionStopHookTest, new since 0.1.14
// (Stars1233/antigravity-sdk-python google/antigravity/connections/local/local_connection_test.py
// @238766a385e2087fb98238d112a13fc9efc28b29): 2 cases, both ported, on the frames themselves —
// the request as a harness writes it, decoded by the real codec, and the answer as the SDK writes it.

const SOURCE = "Stars1233 local_connection_test.py @238766a3";

/** The callHookRequest of a frame as the harness writes it. */
function request(value: Record<string, unknown>): CallHookRequest {
  const event = decodeOutputEvent(JSON.stringify({ callHookRequest: value }));
  if (event.event.case !== "callHookRequest") throw new Error("not a callHookRequest");
  return event.event.value;
}

describe(`STOP hook over the wire (${SOURCE})`, () => {
  it("test_get_enabled_hooks_includes_stop: a stop hook enables LIFECYCLE_HOOK_STOP in the config", () => {
    const hooks = new HookRunner([{ stop: () => ({ decision: "ALLOW_STOP" }) }]);
    const json = toJson(HarnessConfigSchema, buildHarnessConfig({}, { hooks })) as { enabledHooks?: string[] };
    expect(json.enabledHooks).toContain("LIFECYCLE_HOOK_STOP");
  });

  it("test_stop_hook_dispatched_via_local_harness: the hook sees the args, the answer is stopResult CONTINUE", async () => {
    const seen: StopArgs[] = [];
    const runner = new HookRunner([
      {
        stop: (args) => {
          seen.push(args);
          return { decision: "CONTINUE", reason: "Continue working" };
        },
      },
    ]);
    const answer = await runner.handle(
      request({
        requestId: "req_stop_1",
        name: "Stop",
        type: "LIFECYCLE_HOOK_STOP",
        stopArgs: {
          responseText: "Done with task",
          trajectoryId: "main_traj",
          continuationCount: 0,
          stopReason: "STOP_REASON_UNSPECIFIED",
          errorMessage: "",
        },
      }),
    );
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ responseText: "Done with task", trajectoryId: "main_traj", continuationCount: 0 });
    expect(seen[0]?.stopReason ?? "UNSPECIFIED").toBe("UNSPECIFIED");
    const frame = JSON.parse(
      encodeInputEvent(create(InputEventSchema, { event: { case: "callHookResponse", value: answer } })),
    ) as { callHookResponse: { requestId: string; stopResult: { decision: string; reason: string } } };
    expect(frame.callHookResponse.requestId).toBe("req_stop_1");
    expect(frame.callHookResponse.stopResult).toEqual({ decision: "CONTINUE", reason: "Continue working" });
  });
});

// The STOP cases of upstream's types_test.py StopHookTypesTest that are new since 0.1.14
// (Stars1233/antigravity-sdk-python google/antigravity/types_test.py
// @4bfe2531e50bac328103eed7f78465f287c3479d), through the HookRunner and the frames.
// Skipped, Python-only (2): test_stop_decision_enum (enum string values) and
// test_stop_hook_result_extra_fields_ignored (pydantic model_validate of a dict).
const TYPES = "Stars1233 types_test.py @4bfe2531";

/** The JSON answer to one STOP request whose hook returns `result`. */
async function stopAnswer(result: unknown, stopArgs: Record<string, unknown> = {}): Promise<unknown> {
  const runner = new HookRunner([{ stop: () => result as never }]);
  const answer = await runner.handle(request({ requestId: "r", type: "LIFECYCLE_HOOK_STOP", stopArgs }));
  return (
    JSON.parse(encodeInputEvent(create(InputEventSchema, { event: { case: "callHookResponse", value: answer } }))) as {
      callHookResponse: unknown;
    }
  ).callHookResponse;
}

describe(`StopHookResult and StopArgs (${TYPES})`, () => {
  it("test_stop_hook_result_defaults: returning nothing allows the stop", async () => {
    expect(await stopAnswer(undefined)).toEqual({ requestId: "r", stopResult: { decision: "ALLOW_STOP" } });
  });

  it("test_stop_hook_result_custom: CONTINUE carries its reason", async () => {
    expect(await stopAnswer({ decision: "CONTINUE", reason: "Needs revision" })).toEqual({
      requestId: "r",
      stopResult: { decision: "CONTINUE", reason: "Needs revision" },
    });
  });

  it("test_stop_hook_result_continue_requires_non_empty_reason: the hook fails, so the turn stops", async () => {
    for (const reason of [undefined, "", "   "]) {
      const answer = (await stopAnswer({ decision: "CONTINUE", reason })) as Record<string, unknown>;
      expect(answer).not.toHaveProperty("stopResult");
      expect(answer["errorMessage"]).toMatch(/non-empty reason/);
    }
  });

  it("test_stop_args_defaults: an empty stopArgs reads as empty text, count 0, no reason", async () => {
    const seen: StopArgs[] = [];
    await new HookRunner([{ stop: (args) => void seen.push(args) }]).handle(
      request({ requestId: "r", type: "LIFECYCLE_HOOK_STOP", stopArgs: {} }),
    );
    expect(seen).toEqual([{ trajectoryId: "", responseText: "", continuationCount: 0 }]);
  });

  it("test_stop_args_custom / test_stop_args_string_coercion_and_extra_ignored: the wire's enum names become StopReason", async () => {
    const seen: StopArgs[] = [];
    await new HookRunner([{ stop: (args) => void seen.push(args) }]).handle(
      request({
        requestId: "r",
        type: "LIFECYCLE_HOOK_STOP",
        stopArgs: {
          responseText: "All done",
          trajectoryId: "traj_123",
          continuationCount: 2,
          stopReason: "STOP_REASON_MAX_MODEL_CALLS_EXCEEDED",
          errorMessage: "budget reached",
        },
      }),
    );
    expect(seen).toEqual([
      {
        responseText: "All done",
        trajectoryId: "traj_123",
        continuationCount: 2,
        stopReason: "MAX_MODEL_CALLS_EXCEEDED",
        errorMessage: "budget reached",
      },
    ]);
  });
});
