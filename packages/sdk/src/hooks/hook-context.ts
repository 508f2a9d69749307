/** Where a {@link HookContext} lives: the whole session, one turn, or one operation (a tool call). */
export type HookScope = "session" | "turn" | "operation";

/** Hook state: any JSON-like record. Give your own interface for typed keys. */
export type HookState = Record<string, unknown>;

/**
 * State shared between hooks, scoped like upstream's `HookContext` hierarchy
 * (google/antigravity/hooks/hooks.py `SessionContext` → `TurnContext` → `OperationContext`, on
 * utils/state.py `StateStore`): a read falls back to the enclosing scopes, a write stays in this
 * one, so what a turn or an operation writes never leaks into the session. The session context
 * lives as long as the agent's hook runner; a turn context from the PRE_TURN hook to the POST_TURN
 * hook; an operation context for one tool call (its PRE_TOOL, POST_TOOL and ON_TOOL_ERROR hooks)
 * or one question.
 *
 * @example
 * const hook: Hook = {
 *   preTurn: (_prompt, _where, ctx) => ctx.setState("startedAt", Date.now()),
 *   postTurn: (_text, _where, ctx) => console.log("turn took", Date.now() - (ctx.getState("startedAt") as number)),
 * };
 */
export class HookContext<State extends HookState = HookState> {
  readonly #store = new Map<keyof State, unknown>();

  /** @param scope what this context is scoped to. @param parent the enclosing scope, read through. */
  constructor(
    readonly scope: HookScope,
    readonly parent?: HookContext<State>,
  ) {}

  /** The value of `key` here or in the nearest enclosing scope that has it; `fallback` otherwise. */
  getState<K extends keyof State>(key: K): State[K] | undefined;
  getState<K extends keyof State>(key: K, fallback: State[K]): State[K];
  getState<K extends keyof State>(key: K, fallback?: State[K]): State[K] | undefined {
    if (this.#store.has(key)) return this.#store.get(key) as State[K];
    return this.parent === undefined ? fallback : this.parent.getState(key, fallback as State[K]);
  }

  /** Sets `key` in this scope (enclosing scopes keep their value). */
  setState<K extends keyof State>(key: K, value: State[K]): void {
    this.#store.set(key, value);
  }

  /**
   * Replaces `key` by `update(current)`, where `current` is what {@link getState} reads (possibly
   * an enclosing scope's value); the result is stored in this scope, as upstream's `update_state`.
   * Returns the new value. (JavaScript runs hooks on one thread, so the read and write are atomic.)
   */
  updateState<K extends keyof State>(key: K, update: (current: State[K] | undefined) => State[K]): State[K];
  updateState<K extends keyof State>(key: K, update: (current: State[K]) => State[K], fallback: State[K]): State[K];
  updateState<K extends keyof State>(key: K, update: (current: State[K]) => State[K], fallback?: State[K]): State[K] {
    const next = update(this.getState(key, fallback as State[K]));
    this.#store.set(key, next);
    return next;
  }

  /** Removes `key` from this scope (a read then falls back to the enclosing scopes again). */
  deleteState(key: keyof State): boolean {
    return this.#store.delete(key);
  }

  /** This context with typed keys: `ctx.typed<{ startedAt: number }>().getState("startedAt")`. */
  typed<Typed extends HookState>(): HookContext<Typed> {
    return this as unknown as HookContext<Typed>;
  }

  /** Whether this scope itself (not an enclosing one) holds `key`. */
  hasOwnState(key: keyof State): boolean {
    return this.#store.has(key);
  }
}

/** The most operation contexts a runner keeps at once (calls whose turn context never ends). */
const MAX_OPERATIONS = 256;

/**
 * The contexts of one hook runner at the right boundaries: one session context; a turn context
 * set by PRE_TURN and dropped after POST_TURN (without a PRE_TURN hook, like upstream's
 * `HookRouter`, each hook call gets a fresh turn context); operation contexts by tool call id,
 * dropped with their turn.
 */
export class HookContexts {
  readonly session = new HookContext("session");
  #turn: HookContext | undefined;
  readonly #operations = new Map<string, HookContext>();

  /** PRE_TURN: a new turn context. */
  startTurn(): HookContext {
    this.#operations.clear();
    this.#turn = new HookContext("turn", this.session);
    return this.#turn;
  }

  /** The running turn's context, or a fresh one when no PRE_TURN started it. */
  turn(): HookContext {
    return this.#turn ?? new HookContext("turn", this.session);
  }

  /** After POST_TURN: the turn and its operations end. */
  endTurn(): void {
    this.#turn = undefined;
    this.#operations.clear();
  }

  /** The context of one operation: shared by the hooks of one tool call id; fresh without an id. */
  operation(id = ""): HookContext {
    const turn = this.turn();
    if (id === "") return new HookContext("operation", turn);
    const known = this.#operations.get(id);
    if (known !== undefined && (this.#turn === undefined || known.parent === this.#turn)) return known;
    const created = new HookContext("operation", turn);
    this.#operations.set(id, created);
    if (this.#operations.size > MAX_OPERATIONS) this.#operations.delete(this.#operations.keys().next().value as string);
    return created;
  }
}
