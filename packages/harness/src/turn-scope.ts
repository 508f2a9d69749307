import type { OutputChannel, OutputEventInit } from "./output-channel.js";
import { StepHandle, type StepDeltas, type StepFields, type StepLedger } from "./step-builder.js";

/**
 * The frames of one turn. Once the turn is halted or its client disconnected, everything the
 * turn still tries to send is dropped (§13: after CANCELLED nothing more for that turn); only the
 * cancellation itself goes out, through {@link TurnScope.cancel}.
 */
export class TurnScope {
  readonly #controller = new AbortController();
  readonly #open = new Set<StepHandle>();

  constructor(
    private readonly ledger: StepLedger,
    private readonly channel: OutputChannel,
    parent: AbortSignal,
  ) {
    this.signal = AbortSignal.any([this.#controller.signal, parent]);
  }

  /** Aborts on halt or when the session ends. */
  readonly signal: AbortSignal;

  /** Sends an event of this turn unless the turn was aborted. */
  send = (event: OutputEventInit): boolean => (this.signal.aborted ? false : this.channel.send(event));

  /** The client is not keeping up: skip updates that a later one supersedes (command progress). */
  get congested(): boolean {
    return this.channel.congested;
  }

  /** Waits until the client has caught up; rejects when the turn is aborted. */
  writable(): Promise<void> {
    return this.channel.writable(this.signal);
  }

  /** Opens a step of this turn. */
  openStep(fields: StepFields, deltas: StepDeltas = {}): StepHandle {
    const step = this.ledger.open(fields, (update) => this.send({ case: "stepUpdate", value: update }), deltas);
    this.#open.add(step);
    return step;
  }

  /**
   * Halts the turn: ends every unfinished step with an ERROR update, then aborts. The caller
   * sends the trajectory's CANCELLED state right after.
   */
  cancel(reason: string): void {
    if (this.signal.aborted) return;
    for (const step of this.#open) {
      if (!step.finished) step.fail(reason, {}, (update) => this.channel.send({ case: "stepUpdate", value: update }));
    }
    this.#open.clear();
    this.#controller.abort(new TurnCancelled(reason));
  }

  /** Records unfinished steps as failed without sending anything (client gone). */
  abandon(reason: string): void {
    for (const step of this.#open) {
      if (!step.finished) step.fail(reason, {}, () => false);
    }
    this.#open.clear();
    this.#controller.abort(new TurnCancelled(reason));
  }
}

/** The abort reason of a halted turn. */
export class TurnCancelled extends Error {
  override readonly name = "AbortError";
}
