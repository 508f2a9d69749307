/**
 * Triggers: background sources of messages for the agent (protocol §13, `automatedTrigger`).
 * @module
 */
export type { SendTriggerOptions, Trigger, TriggerContext, TriggerDelivery } from "./trigger.js";
export { every, type EveryOptions, type TriggerMessage } from "./every.js";
export {
  FileChangeBatcher,
  type FileChange,
  type FileChangeBatcherOptions,
  type FileChangeKind,
} from "./file-changes.js";
