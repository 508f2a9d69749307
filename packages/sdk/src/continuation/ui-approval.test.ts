import { describe, expect, it } from "vitest";
import { approvalFromUIMessages, UI_APPROVAL_DESCRIPTOR_KEY } from "./ui-approval.js";

// approvalFromUIMessages reads what a page posted: anything may be missing, mistyped or hostile.
// It only finds an answered approval whose descriptor this SDK wrote, in the last message; the
// continuation it returns is checked by agent.resume (ui-message-stream.test.ts: a forged one is refused).

const continuation = { version: 1, payload: {}, signature: "hmac-sha256:x" };

function answered(part: Record<string, unknown>): unknown[] {
  return [
    { id: "u1", role: "user", parts: [{ type: "text", text: "clean up" }] },
    { id: "a1", role: "assistant", parts: [{ type: "step-start" }, { type: "text", text: "Running it." }, part] },
  ];
}

const part = {
  type: "dynamic-tool",
  toolName: "run_command",
  toolCallId: "conv:2",
  state: "approval-responded",
  input: { CommandLine: "echo hi" },
  approval: { id: "approval:conv:2", approved: true, descriptor: { [UI_APPROVAL_DESCRIPTOR_KEY]: continuation } },
};

describe("approvalFromUIMessages", () => {
  it("finds the page's answer and the continuation its approval request carried", () => {
    expect(approvalFromUIMessages(answered(part))).toEqual({
      continuation,
      decision: { toolCallId: "conv:2", approved: true },
    });
    const denied = { ...part, approval: { ...part.approval, approved: false, reason: "not now" } };
    expect(approvalFromUIMessages(answered(denied))).toEqual({
      continuation,
      decision: { toolCallId: "conv:2", approved: false, reason: "not now" },
    });
  });

  it("finds nothing in a new prompt, an unanswered or foreign approval, or malformed input", () => {
    const cases: unknown[] = [
      undefined,
      null,
      "messages",
      {},
      [],
      [null],
      [{ role: "user", parts: [part] }], // the last message is a prompt
      [...answered(part), { id: "u2", role: "user", parts: [{ type: "text", text: "next" }] }],
      answered({
        ...part,
        state: "approval-requested",
        approval: { id: "a", descriptor: { [UI_APPROVAL_DESCRIPTOR_KEY]: continuation } },
      }),
      answered({ ...part, state: "output-available" }),
      answered({ ...part, approval: { ...part.approval, approved: "yes" } }),
      answered({ ...part, approval: { ...part.approval, descriptor: { other: continuation } } }),
      answered({ ...part, approval: { ...part.approval, descriptor: [continuation] } }),
      answered({
        ...part,
        approval: { ...part.approval, descriptor: Object.create({ [UI_APPROVAL_DESCRIPTOR_KEY]: continuation }) },
      }),
      answered({ ...part, toolCallId: 7 }),
      answered({ ...part, approval: null }),
      [{ role: "assistant", parts: "not an array" }],
    ];
    for (const messages of cases) expect(approvalFromUIMessages(messages)).toBeUndefined();
  });

  it("ignores a reason that is not text", () => {
    const odd = { ...part, approval: { ...part.approval, reason: { toString: "x" } } };
    expect(approvalFromUIMessages(answered(odd))?.decision).toEqual({ toolCallId: "conv:2", approved: true });
  });
});
