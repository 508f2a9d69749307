import type { Step, UsageMetadata } from "../types.js";

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
    return { ...this.base, content: newest.content.slice(0, this.contentLength), thinking: newest.thinking.slice(0, this.thinkingLength) };
  }
}

/**
 * The append-only storage of one turn's buffer. The harness re-sends a step with its whole text
 * on every update (§6.2), so keeping every update of a long answer would hold O(n²) characters.
 * When an update's `content` and `thinking` extend the previous update's, the previous one keeps
 * only its lengths and slices its text from the newest update when it is read again: the buffer
 * holds each step's text once, and every update still reads back exactly as it arrived.
 */
export class TurnEntries {
  readonly #entries: (TurnEntry | SupersededStep)[] = [];
  /** Step id → its newest update, in first-seen order. */
  readonly #latest = new Map<string, Latest>();

  get length(): number {
    return this.#entries.length;
  }

  /** The entry at `index` as it arrived, or `undefined` past the end. */
  at(index: number): TurnEntry | undefined {
    const entry = this.#entries[index];
    return entry instanceof SupersededStep ? entry.materialize() : entry;
  }

  has(id: string): boolean {
    return this.#latest.has(id);
  }

  /** The newest update of every step, in the order the steps first arrived. */
  latestSteps(): Step[] {
    const steps: Step[] = [];
    for (const { chain } of this.#latest.values()) steps.push(chain.step);
    return steps;
  }

  pushUsage(mark: UsageMark): void {
    this.#entries.push(mark);
  }

  pushStep(step: Step): void {
    const index = this.#entries.length;
    const latest = this.#latest.get(step.id);
    if (latest === undefined) {
      this.#latest.set(step.id, { index, chain: { step } });
    } else {
      const previous = this.#entries[latest.index] as Step;
      if (extends_(previous, step)) {
        this.#entries[latest.index] = new SupersededStep({ ...previous, content: "", thinking: "" }, latest.chain, previous.content.length, previous.thinking.length);
        latest.chain.step = step;
      } else {
        latest.chain = { step }; // older superseded updates keep slicing from `previous`
      }
      latest.index = index;
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
