import { createMessage, errorText, TrajectoryStateUpdate_State } from "@antigravity-ts/sdk/internal";
import type { UserInput } from "@antigravity-ts/sdk/wire";
import type { Logger } from "../log.js";
import { runTurn, type TurnInput } from "../loop/agent-loop.js";
import { TRIGGER_PREFIX } from "../loop/model-transcript.js";
import type { OutputChannel } from "../loop/output-channel.js";
import type { SessionState } from "../loop/state.js";
import { TurnScope } from "../loop/turn-scope.js";
import { mediaByteLength } from "../model/media.js";
import { systemErrorStep } from "../step-ledger.js";
import { MAX_PROMPT_BYTES, userInputMedia, userInputText } from "./read-user-input.js";
import { CloseCode } from "./session-init.js";

/** Prompts (text and media) one connection may queue behind its running turn (issue 8 item 7). */
const MAX_QUEUED_INPUT_BYTES = 64 * 1024 * 1024;

/** A prompt waiting for its turn, or one refused, whose refusal is reported in its turn's place. */
type QueuedInput = TurnInput | { refused: string };

/** The turn running now: its scope (cancel, abandon) and when it has stopped and been saved. */
export interface RunningTurn {
  readonly scope: TurnScope;
  readonly done: Promise<void>;
}

/** What a {@link TurnQueue} needs from its session. */
export interface TurnQueueHost {
  readonly state: SessionState;
  readonly channel: OutputChannel;
  /** Aborted when the session ends. */
  readonly ended: AbortSignal;
  /** Settles when the ON_SESSION_START hook is answered; the first turn waits for it (§5.3). */
  readonly sessionStart: Promise<void>;
  /** Whether a turn may start now (the session is ready, not held nor closed). */
  canStart(): boolean;
  persist(): Promise<void>;
  /** Reports bad client input as a SOURCE_SYSTEM ERROR step; the session goes on. */
  badInput(message: string): void;
  /** Closes the connection with `code` and `reason`. */
  fail(code: number, reason: string): void;
}

/**
 * The turn control of one session: user inputs and automated triggers queue behind the running
 * turn and run one at a time; a refused prompt is reported in its turn's place; a haltRequest
 * stops the running turn (§13).
 */
export class TurnQueue {
  readonly #host: TurnQueueHost;
  readonly #log: Logger;
  #current: RunningTurn | undefined;
  #queue: QueuedInput[] = [];

  constructor(host: TurnQueueHost) {
    this.#host = host;
    this.#log = host.state.log;
  }

  /** The turn running now, if any. */
  get current(): RunningTurn | undefined {
    return this.#current;
  }

  /** A `userInput` frame: queued as a turn, or refused in its turn's place. */
  userInput(userInput: UserInput): void {
    const text = userInputText(userInput);
    const bytes = Buffer.byteLength(text);
    // A whitespace-only prompt is legal (§6.1: upstream sends " "); a userInput without parts is not.
    if (bytes > MAX_PROMPT_BYTES || userInput.parts.length === 0) {
      const message =
        bytes > MAX_PROMPT_BYTES
          ? `prompt of ${bytes} bytes refused: the limit is ${MAX_PROMPT_BYTES} bytes`
          : "userInput without parts refused: send at least one text part";
      // Reported in the place of its turn: a FULLY_IDLE in the middle of a running turn would end that turn for the client (§6.3).
      this.#queue.push({ refused: message });
    } else {
      const media = userInputMedia(userInput);
      const input = "refused" in media ? media : { userInput, text, media };
      if (queuedBytes([...this.#queue, input]) > MAX_QUEUED_INPUT_BYTES) {
        this.#host.fail(
          CloseCode.policy,
          `more than ${MAX_QUEUED_INPUT_BYTES} bytes of prompts queued behind the running turn; wait for its end`,
        );
        return;
      }
      this.#queue.push(input);
    }
    this.pump();
  }

  /** An `automatedTrigger` frame: given to the running turn, or run as a turn of its own. */
  trigger(text: string): void {
    if (this.#current !== undefined && !this.#current.scope.signal.aborted) {
      this.#host.state.queueTrigger(text);
      return;
    }
    this.#queue.push(triggerInput(text));
    this.pump();
  }

  /** Starts the next queued turn when none runs and the session may start one. */
  pump(): void {
    const { state, channel } = this.#host;
    if (this.#current !== undefined || !this.#host.canStart()) return;
    const input = this.#queue.shift();
    if (input === undefined) return;
    if ("refused" in input) {
      this.#host.badInput(input.refused);
      channel.send({
        case: "trajectoryStateUpdate",
        value: { trajectoryId: state.cascadeId, state: TrajectoryStateUpdate_State.FULLY_IDLE, error: input.refused },
      });
      this.pump();
      return;
    }
    const scope = new TurnScope(state.ledger, channel, this.#host.ended);
    const done = (async () => {
      await this.#host.sessionStart;
      await runTurn(state, input, scope, { beforeIdle: () => this.#host.persist() });
    })()
      .catch((error: unknown) => {
        if (scope.signal.aborted) return;
        const message = `internal harness error: ${errorText(error)}`;
        this.#log.error(message);
        scope.openStep(systemErrorStep(message));
        scope.send({
          case: "trajectoryStateUpdate",
          value: { trajectoryId: state.cascadeId, state: TrajectoryStateUpdate_State.FULLY_IDLE, error: message },
        });
      })
      .finally(async () => {
        await this.#host.persist();
        this.#current = undefined;
        if (!scope.signal.aborted) for (const trigger of state.takeTriggers()) this.#queue.push(triggerInput(trigger));
        this.pump();
      });
    this.#current = { scope, done };
  }

  /**
   * §13: stop at once, end the open steps, report the usage counted so far, send FULLY_IDLE, and
   * nothing more for that turn. FULLY_IDLE, not CANCELLED: upstream's own halt test
   * (`local_connection_test.py::test_cancel_e2e_raises_cancelled_error`) sends FULLY_IDLE after the
   * halt, and upstream raises `AntigravityExecutionError("Turn cancelled")` on any CANCELLED before
   * checking whether the client asked (issue 10 item 1). CANCELLED stays for a PRE_TURN deny.
   */
  halt(): void {
    const current = this.#current;
    const { state, channel } = this.#host;
    if (current === undefined || current.scope.signal.aborted) {
      this.#log.info("haltRequest while idle: nothing to stop");
      return;
    }
    current.scope.cancel("cancelled by haltRequest");
    state.takeTriggers();
    channel.send({
      case: "trajectoryStateUpdate",
      value: { trajectoryId: state.cascadeId, state: TrajectoryStateUpdate_State.FULLY_IDLE },
    });
  }
}

function queuedBytes(queue: readonly QueuedInput[]): number {
  let bytes = 0;
  for (const input of queue)
    if (!("refused" in input))
      bytes += Buffer.byteLength(input.text) + (input.media ?? []).reduce((sum, m) => sum + mediaByteLength(m), 0);
  return bytes;
}

function triggerInput(text: string): TurnInput {
  const userInput = createMessage<UserInput>("antigravity.localharness.UserInput", {
    parts: [{ part: { case: "text", value: text } }],
  });
  return { userInput, text: `${TRIGGER_PREFIX} ${text}` };
}
