import { ErrorCode, SdkError, type Conversation, type Prompt } from "@antigravity-ts/sdk";
import type { TurnRenderer } from "./turn-renderer.js";

/** How a turn ended. */
export type TurnOutcome = "done" | "halted";

/**
 * Runs one turn and renders it: sends the prompt, draws every step update of the turn (thoughts,
 * text, tool calls with a spinner), then the token usage. Aborting `signal` halts the turn
 * (protocol §13) and resolves `"halted"`; other failures reject with the `SdkError`.
 */
export async function runTurn(
  conversation: Conversation,
  prompt: Prompt,
  renderer: TurnRenderer,
  signal: AbortSignal,
): Promise<TurnOutcome> {
  let failure: SdkError | undefined;
  try {
    // throughCancel: after a halt, the steps the harness still sends (up to its halt) are drawn
    // too, so the halted turn shows what /history shows.
    for await (const step of conversation.chat(prompt, { signal }).steps({ throughCancel: true }))
      renderer.onStep(step);
  } catch (error) {
    failure = SdkError.from(error);
  }
  renderer.finish();
  if (signal.aborted || failure?.code === ErrorCode.Canceled) {
    renderer.note("(turn halted)", "dim");
    return "halted";
  }
  if (failure !== undefined) throw failure;
  renderer.usage(await conversation.lastTurnUsage(), await conversation.totalUsage());
  return "done";
}
