/**
 * Tool-call ids the providers invent when a backend returns a call without one (`call_<n>`).
 */
import type { ModelMessage } from "../model/provider.js";

/** Matches ids of the form the providers generate. */
export const GENERATED_CALL_ID = /^call_(\d+)$/;

/**
 * Hands out `call_<n>` ids that do not collide with generated ids already in a transcript (a
 * resumed conversation carries ids from an earlier process).
 */
export interface CallIdGenerator {
  /** Moves past every generated id in `messages`. */
  observe(messages: readonly ModelMessage[]): void;
  next(): string;
}

/** Creates a {@link CallIdGenerator} starting at `call_1`. */
export function createCallIdGenerator(): CallIdGenerator {
  let nextNumber = 1;
  return {
    observe(messages) {
      for (const message of messages) {
        if (message.role !== "model") continue;
        for (const call of message.toolCalls) {
          const digits = GENERATED_CALL_ID.exec(call.id)?.[1];
          if (digits !== undefined) nextNumber = Math.max(nextNumber, Number(digits) + 1);
        }
      }
    },
    next: () => `call_${nextNumber++}`,
  };
}
