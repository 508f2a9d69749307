export {
  CONTINUATION_VERSION,
  MAX_CONTINUATION_CHARS,
  MAX_CONTINUATION_DEPTH,
  awaitedCall,
  parseContinuation,
} from "./continuation.js";
export type { Continuation, ContinuationPayload, PendingToolCall } from "./continuation.js";
export { MIN_SECRET_BYTES, signContinuation, verifyContinuation } from "./continuation-signing.js";
export type { ContinuationSecret, WebCryptoKey } from "./continuation-signing.js";
export { ConsumedConfirmations, processResumeGuard, replayed, type ResumeGuard } from "./consumed-confirmations.js";
export { canonicalJson } from "./canonical-json.js";
export { UI_APPROVAL_DESCRIPTOR_KEY, approvalFromUIMessages, type UIApproval } from "./ui-approval.js";
