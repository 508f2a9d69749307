// The server side of the AI SDK's tool approval round trip (`ai` 7.x, `useChat`): a paused turn's
// UI message stream sends `tool-approval-request` with the signed continuation as its
// `approvalDescriptor`; the page answers with `addToolApprovalResponse({ id, approved, reason })`,
// which turns that tool part into `state: "approval-responded"` with `approval: { id, approved,
// reason?, descriptor }` (ai's `UIToolInvocation` / `DynamicToolUIPart` types, and its
// `processUIMessageStream` copying `approvalDescriptor` to `approval.descriptor`), and posts the
// messages back. This reads that answer out of the posted messages.

/** The key of the `approvalDescriptor` object that carries a paused turn's continuation. */
export const UI_APPROVAL_DESCRIPTOR_KEY = "antigravityContinuation";

/** A page's answer to a paused turn, as {@link approvalFromUIMessages} finds it. */
export interface UIApproval {
  /** The continuation the stream handed out (unverified: `agent.resume` verifies its signature and shape). */
  continuation: unknown;
  /** What to pass to `agent.resume(continuation, decision)`, and to `toUIMessageStream({ resumed: decision })`. */
  decision: { toolCallId: string; approved: boolean; reason?: string };
}

/**
 * The page's answer to a paused turn in the messages `useChat` posted (`body.messages` of
 * `DefaultChatTransport`'s request), or `undefined` when the last message answers no approval
 * (a new prompt). Only the last message is read, and only a tool part in state
 * `"approval-responded"` whose `approval.descriptor` came from `ChatStream.toUIMessageStream()`.
 * The values are the page's: anything it sent may be forged, so resume with a
 * `continuationSecret` (the continuation's signature binds the call and its arguments).
 *
 * @example
 * const { messages } = await request.json();
 * const approval = approvalFromUIMessages(messages);
 * if (approval !== undefined) {
 *   const { stream } = await agent.resume(approval.continuation, approval.decision);
 *   return stream.toUIMessageStreamResponse({ resumed: approval.decision });
 * }
 */
export function approvalFromUIMessages(messages: unknown): UIApproval | undefined {
  if (!Array.isArray(messages)) return undefined;
  const last: unknown = messages[messages.length - 1];
  if (!isRecord(last) || last.role !== "assistant" || !Array.isArray(last.parts)) return undefined;
  for (const part of last.parts as unknown[]) {
    if (!isRecord(part) || part.state !== "approval-responded" || typeof part.toolCallId !== "string") continue;
    const approval = part.approval;
    if (!isRecord(approval) || typeof approval.approved !== "boolean" || !isRecord(approval.descriptor)) continue;
    if (!Object.hasOwn(approval.descriptor, UI_APPROVAL_DESCRIPTOR_KEY)) continue;
    const decision: UIApproval["decision"] = { toolCallId: part.toolCallId, approved: approval.approved };
    if (typeof approval.reason === "string") decision.reason = approval.reason;
    return { continuation: approval.descriptor[UI_APPROVAL_DESCRIPTOR_KEY], decision };
  }
  return undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
