import { ErrorCode, SdkError } from "../errors.js";
import { delay } from "../util/abort.js";
import type { Trigger, TriggerContext, TriggerDelivery } from "./trigger.js";

/** Options of {@link every}. */
export interface EveryOptions {
  /** `"now"` (default) joins a running turn; `"whenIdle"` waits until the agent is idle. */
  delivery?: TriggerDelivery;
}

/** A message, or a function making one each time (return `undefined` to skip a tick). */
export type TriggerMessage = string | ((context: TriggerContext) => string | undefined | Promise<string | undefined>);

/**
 * A trigger that sends `message` every `intervalMs` milliseconds, first after one interval,
 * until the agent stops (antigravity-api.md §2.10).
 *
 * @example
 * Agent.builder().allowAll().trigger(every(60_000, "Check the build status.", { delivery: "whenIdle" }));
 */
export function every(intervalMs: number, message: TriggerMessage, options: EveryOptions = {}): Trigger {
  if (!(intervalMs > 0))
    throw new SdkError(
      ErrorCode.InvalidArgument,
      `every(): intervalMs must be a number > 0, got ${String(intervalMs)}`,
    );
  const delivery = options.delivery ?? "now";
  return {
    async run(context, signal) {
      for (;;) {
        await delay(intervalMs, signal);
        const text = typeof message === "string" ? message : await message(context);
        if (text === undefined) continue;
        await context.sendTrigger(text, { delivery, signal });
      }
    },
  };
}
