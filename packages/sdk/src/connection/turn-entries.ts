import { StepStatus, type Step, type UsageMetadata } from "../step.js";

/** A usage report (§14 `usageUpdate`) that arrived during a turn, in order with its steps. */
export class UsageMark {
  /** `total` is the session's cumulative usage as the harness reported it. */
  constructor(readonly total: UsageMetadata) {}
}

/** What a turn's buffer holds, in arrival order: step updates and usage reports. */
export type TurnEntry = Step | UsageMark;

/** Below this many characters a superseded update keeps its own text: compacting it saves nothing. */
const COMPACT_MIN_CHARS = 256;

/** The newest update of one step id in the buffer, and the chain its superseded updates slice from. */
interface Latest {
  index: number;
  chain: { step: Step };
}

/** A superseded update whose text is a prefix of a newer update's (see {@link TurnEntries}). */
class SupersededStep {
  constructor(
    readonly base: Step,
    readonly chain: { step: Step },
    readonly contentLength: number,
    readonly thinkingLength: number,
  ) {}

  materialize(): Step {
    const newest = this.chain.step;
    return {
      ...this.base,
      content: newest.content.slice(0, this.contentLength),
      thinking: newest.thinking.slice(0, this.thinkingLength),
    };
  }
}

/**
 * The append-only storage of one turn's buffer. The harness re-sends a step with its whole text
 * on every update (§6.2), so keeping every update of a long answer would hold O(n²) characters.
 * When an update's `content` and `thinking` extend the previous update's, the previous one keeps
 * only its lengths and slices its text from the newest update when it is read again: the buffer
 * holds each step's text once, and every update still reads back exactly as it arrived.
 *
 * Only steps still running are indexed while the turn streams (a step finished at first sight,
 * the common case of a fast stream, costs no lookup); the index of every step is built when it
 * is first asked for.
 */
export class TurnEntries {
  readonly #entries: (TurnEntry | SupersededStep)[] = [];
  /** Steps whose newest update is unfinished (ACTIVE, WAITING_FOR_USER): the ones that get more updates. */
  readonly #running = new Map<string, Latest>();
  /** Every step id, once asked for ({@link has}). */
  #ids: Set<string> | undefined;

  get length(): number {
    return this.#entries.length;
  }

  /** The entry at `index` as it arrived, or `undefined` past the end. */
  at(index: number): TurnEntry | undefined {
    const entry = this.#entries[index];
    return entry instanceof SupersededStep ? entry.materialize() : entry;
  }

  has(id: string): boolean {
    if (this.#ids === undefined) {
      this.#ids = new Set();
      for (const entry of this.#entries)
        if (!(entry instanceof UsageMark)) this.#ids.add(entry instanceof SupersededStep ? entry.base.id : entry.id);
    }
    return this.#ids.has(id);
  }

  /** The newest update of every step, in the order the steps first arrived. */
  latestSteps(): Step[] {
    const latest = new Map<string, Step>(); // a key keeps its first position when set again
    for (const entry of this.#entries) {
      if (entry instanceof UsageMark) continue;
      if (entry instanceof SupersededStep) {
        if (!latest.has(entry.base.id)) latest.set(entry.base.id, entry.base); // a newer update replaces it below
      } else {
        latest.set(entry.id, entry);
      }
    }
    return [...latest.values()];
  }

  pushUsage(mark: UsageMark): void {
    this.#entries.push(mark);
  }

  pushStep(step: Step): void {
    const index = this.#entries.length;
    this.#ids?.add(step.id);
    const running = step.status === StepStatus.Active || step.status === StepStatus.WaitingForUser;
    const latest = this.#running.size === 0 ? undefined : this.#running.get(step.id);
    if (latest !== undefined) {
      const previous = this.#entries[latest.index] as Step;
      if (extends_(previous, step)) {
        this.#entries[latest.index] = new SupersededStep(
          { ...previous, content: "", thinking: "" },
          latest.chain,
          previous.content.length,
          previous.thinking.length,
        );
        latest.chain.step = step;
      } else {
        latest.chain = { step }; // older superseded updates keep slicing from `previous`
      }
      latest.index = index;
      if (!running) this.#running.delete(step.id);
    } else if (running) {
      this.#running.set(step.id, { index, chain: { step } });
    }
    this.#entries.push(step);
  }
}
/** True when `next` extends `previous`'s text and that text is long enough to be worth sharing. */
function extends_(previous: Step, next: Step): boolean {
  return (
    previous.content.length + previous.thinking.length >= COMPACT_MIN_CHARS &&
    next.content.startsWith(previous.content) &&
    next.thinking.startsWith(previous.thinking)
  );
}
