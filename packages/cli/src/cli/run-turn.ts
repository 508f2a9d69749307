import { ErrorCode, SdkError, type Conversation, type Prompt } from "@antigravity-ts/sdk";
import type { TurnRenderer } from "./turn-renderer.js";

/** How a turn ended. */
export type TurnOutcome = "done" | "halted";

/**
 * Runs one turn and renders it: sends the prompt, draws every step update of the turn (thoughts,
 * text, tool calls with a spinner), then the token usage. Aborting `signal` halts the turn
 * (protocol §13) and resolves `"halted"`; other failures reject with the `SdkError`.
 */
export async function runTurn(conversation: Conversation, prompt: Prompt, renderer: TurnRenderer, signal: AbortSignal): Promise<TurnOutcome> {
  try {
    for await (const step of conversation.chat(prompt, { signal }).steps()) renderer.onStep(step);
  } catch (error) {
    const sdkError = SdkError.from(error);
    renderer.finish();
    if (signal.aborted || sdkError.code === ErrorCode.Canceled) {
      renderer.note("(turn halted)", "dim");
      return "halted";
    }
    throw sdkError;
  }
  renderer.finish();
  renderer.usage(await conversation.lastTurnUsage(), await conversation.totalUsage());
  return "done";
}
