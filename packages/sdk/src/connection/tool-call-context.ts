import type { ToolContext } from "../tools/tool.js";
import { type LinkedSignal, linkSignal } from "../util/abort.js";

/**
 * The {@link ToolContext} of one client tool call. A class rather than an object literal: a
 * literal with a `signal` getter is built through V8's slow path (microseconds per call, a
 * large part of a fast tool's round trip), a class instance is not.
 *
 * The signal linking the session's and the turn's is made only if the tool reads `signal`: an
 * AbortController and two listeners per call would cost more than the rest of the call.
 */
export class ToolCallContext implements ToolContext {
  readonly conversationId: string;
  readonly callId: string;
  readonly trajectoryId: string;
  readonly state: Map<string, unknown>;
  /** An own property, so `const { sendTrigger } = context` works as it does for a plain object. */
  readonly sendTrigger: (text: string) => Promise<void>;
  readonly #sessionSignal: AbortSignal;
  /** The call's turn; its signal is read only when the tool reads `signal` (the turn makes it on demand). */
  readonly #turn: { readonly signal: AbortSignal };
  #link: LinkedSignal | undefined;
  #finished = false;

  constructor(fields: {
    conversationId: string;
    callId: string;
    trajectoryId: string;
    state: Map<string, unknown>;
    sendTrigger: (text: string) => Promise<void>;
    sessionSignal: AbortSignal;
    turn: { readonly signal: AbortSignal };
  }) {
    this.conversationId = fields.conversationId;
    this.callId = fields.callId;
    this.trajectoryId = fields.trajectoryId;
    this.state = fields.state;
    this.sendTrigger = fields.sendTrigger;
    this.#sessionSignal = fields.sessionSignal;
    this.#turn = fields.turn;
  }

  get signal(): AbortSignal {
    // Read after the call returned: a signal that no longer follows the turn, as a disposed link's.
    this.#link ??= this.#finished
      ? { signal: new AbortController().signal, dispose: () => {} }
      : linkSignal(undefined, this.#sessionSignal, this.#turn.signal);
    return this.#link.signal;
  }

  /** The call is over: the linked signal (if one was made) stops following the session and turn. */
  finish(): void {
    this.#finished = true;
    this.#link?.dispose();
  }
}
