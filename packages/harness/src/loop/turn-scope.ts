import type { OutputChannel, OutputEventInit } from "./output-channel.js";
import { StepHandle, type StepDeltas, type StepFields, type StepLedger } from "../step-ledger.js";

/** Work that must finish when a turn stops early; `send` reaches the client only on a halt. */
export type StopHandler = (send: (event: OutputEventInit) => boolean) => void;

/**
 * The frames of one turn. Once the turn is halted or its client disconnected, everything the
 * turn still tries to send is dropped (§13: after the halt's FULLY_IDLE nothing more for that
 * turn); only what the halt itself reports goes out, through {@link TurnScope.cancel}.
 */
export class TurnScope {
  readonly #controller = new AbortController();
  readonly #open = new Set<StepHandle>();
  readonly #stopHandlers = new Set<StopHandler>();

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
   * Registers work to do synchronously when the turn is halted or abandoned, before it aborts
   * (e.g. the usage a model call counted so far, issue 8 item 9). Returns the unregistration.
   */
  onStop(handler: StopHandler): () => void {
    this.#stopHandlers.add(handler);
    return () => this.#stopHandlers.delete(handler);
  }

  /**
   * Halts the turn: runs the stop handlers (their frames go out), ends every unfinished step with
   * an ERROR update, then aborts. The caller sends the trajectory's FULLY_IDLE right after.
   */
  cancel(reason: string): void {
    if (this.signal.aborted) return;
    this.#stop(reason, this.channel.send);
  }

  /** Records unfinished steps as failed and runs the stop handlers without sending anything (client gone). */
  abandon(reason: string): void {
    // The session's end aborts the parent signal first; only a turn already halted is done.
    if (this.#controller.signal.aborted) return;
    this.#stop(reason, () => false);
  }

  #stop(reason: string, send: (event: OutputEventInit) => boolean): void {
    // Handlers first: they may still complete a step (a held text delta) before it fails.
    for (const handler of this.#stopHandlers) handler(send);
    this.#stopHandlers.clear();
    for (const step of this.#open) {
      if (!step.finished) step.fail(reason, {}, (update) => send({ case: "stepUpdate", value: update }));
    }
    this.#open.clear();
    this.#controller.abort(new TurnCancelled(reason));
  }
}

/** The abort reason of a halted turn. */
export class TurnCancelled extends Error {
  override readonly name = "AbortError";
}
