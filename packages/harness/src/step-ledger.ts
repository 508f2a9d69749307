import type { MessageInitShape, StepUpdate, StepUpdateSchema } from "@antigravity-ts/sdk/wire";
import { StepUpdate_Source, StepUpdate_State, StepUpdate_Target, createMessage } from "@antigravity-ts/sdk/internal";

/** Steps are built from the schema-free wire plan (`createMessage`), not `create()`: no registry at start-up. */
const STEP_UPDATE: StepUpdate["$typeName"] = "antigravity.localharness.StepUpdate";

/** The fields of a step, as a plain init object (nested messages may be plain objects). */
export type StepFields = Exclude<MessageInitShape<typeof StepUpdateSchema>, StepUpdate>;

/** Per-update increments (§6.2): carried by one update only, never stored. */
export interface StepDeltas {
  textDelta?: string;
  thinkingDelta?: string;
}

/** Sends one `stepUpdate`; returns false when the frame was dropped (turn halted). */
export type StepEmitter = (step: StepUpdate) => boolean;

/**
 * Allocates step indices and keeps the latest state of every step of a session's main
 * trajectory (the history replayed by `initializeConversationResponse` on resume, §5).
 *
 * Step indices start at 0 for the first step of a session and increase by one per new step
 * (UNCONFIRMED base, §23.1: no capture shows the real harness's numbering).
 */
export class StepLedger {
  readonly #history = new Map<number, StepUpdate>();
  #next = 0;

  /** `cascadeId` is also the main trajectory id (§6.2: `cascadeId == trajectoryId` on the main trajectory). */
  constructor(
    readonly cascadeId: string,
    history: readonly StepUpdate[] = [],
  ) {
    for (const step of history) {
      const index = step.stepIndex ?? 0;
      this.#history.set(index, step);
      this.#next = Math.max(this.#next, index + 1);
    }
  }

  /** Opens a new step and emits its first update. */
  open(fields: StepFields, emit: StepEmitter, deltas: StepDeltas = {}): StepHandle {
    const handle = new StepHandle(this, this.#next++, fields, emit);
    handle.update({}, deltas);
    return handle;
  }

  /** The latest state of each step, by index. */
  history(): StepUpdate[] {
    return [...this.#history.entries()].sort(([a], [b]) => a - b).map(([, step]) => step);
  }

  /** Index the next step will get. */
  get nextIndex(): number {
    return this.#next;
  }

  /** @internal */
  record(index: number, step: StepUpdate): void {
    this.#history.set(index, step);
  }
}

/** One step being built; every change is sent as a complete `stepUpdate` (cumulative text, §6.2). */
export class StepHandle {
  #fields: StepFields;

  constructor(
    readonly ledger: StepLedger,
    readonly index: number,
    fields: StepFields,
    readonly emit: StepEmitter,
  ) {
    this.#fields = { ...fields };
  }

  /** Current fields (without ids and deltas). */
  get fields(): Readonly<StepFields> {
    return this.#fields;
  }

  /** True once the step reached DONE or ERROR. */
  get finished(): boolean {
    return this.#fields.state === StepUpdate_State.DONE || this.#fields.state === StepUpdate_State.ERROR;
  }

  /** Merges `patch` into the step, records it and emits one update carrying `deltas`. */
  update(patch: StepFields, deltas: StepDeltas = {}, emit: StepEmitter = this.emit): boolean {
    // Object.assign, not `{ ...a, ...b }`: V8 11 (Node 20) takes a slow path for an object literal
    // with a second spread, microseconds each, and this runs for every streamed chunk.
    // A spread copy of a message is slow to make and to write as well; createMessage's are not.
    this.#fields = Object.assign({}, this.#fields, patch);
    const init = Object.assign(
      { cascadeId: this.ledger.cascadeId, trajectoryId: this.ledger.cascadeId, stepIndex: this.index },
      this.#fields,
    );
    const step = createMessage<StepUpdate>(STEP_UPDATE, init);
    this.ledger.record(this.index, step);
    const withDeltas = deltas.textDelta != null || deltas.thinkingDelta != null;
    return emit(withDeltas ? createMessage<StepUpdate>(STEP_UPDATE, Object.assign(init, deltas)) : step);
  }

  /** Drops fields (e.g. `toolConfirmationRequest` once answered) without emitting. */
  remove(...keys: (keyof StepFields)[]): void {
    const next: Record<string, unknown> = { ...this.#fields };
    for (const key of keys) delete next[key];
    this.#fields = next as StepFields;
  }

  /**
   * Ends the step with an error: `errorMessage` (field 7) and `error{errorMessage}` (§16). A
   * pending `toolConfirmationRequest` goes: a finished step asks nothing (§8).
   */
  fail(message: string, patch: StepFields = {}, emit: StepEmitter = this.emit): boolean {
    this.remove("toolConfirmationRequest");
    return this.update(
      { ...patch, state: StepUpdate_State.ERROR, errorMessage: message, error: { errorMessage: message } },
      {},
      emit,
    );
  }
}

/** Fields of a model-produced, user-visible step (model text and tool steps alike). */
export function modelStep(fields: StepFields = {}): StepFields {
  return { state: StepUpdate_State.ACTIVE, source: StepUpdate_Source.MODEL, target: StepUpdate_Target.USER, ...fields };
}

/** Fields of a harness-produced error step (§16: SOURCE_SYSTEM + `error{errorMessage}`). */
export function systemErrorStep(message: string, httpCode?: number): StepFields {
  return {
    state: StepUpdate_State.ERROR,
    source: StepUpdate_Source.SYSTEM,
    target: StepUpdate_Target.USER,
    errorMessage: message,
    error: httpCode === undefined || httpCode === 0 ? { errorMessage: message } : { errorMessage: message, httpCode },
  };
}
