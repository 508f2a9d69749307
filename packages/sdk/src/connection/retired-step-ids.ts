import type { Step } from "../step.js";

/**
 * Step ids an earlier harness session used in this conversation (seed 002). A conversation
 * restored from a snapshot onto a harness that does not know it — its storage is gone, so it
 * replays no history (protocol §5) and numbers steps from 0 again under the same trajectory ids —
 * would otherwise overwrite its restored steps with new ones. A step whose id is retired gets
 * the first free `<id>~<n>`, and keeps it for every later update of the same step.
 */
export class RetiredStepIds {
  readonly #retired = new Set<string>();
  readonly #renamed = new Map<string, string>();

  /** Retires `ids`: steps recorded before, which the harness no longer knows. */
  retire(ids: Iterable<string>): void {
    for (const id of ids) this.#retired.add(id);
  }

  /** `step` under the id it has in the conversation: its own, unless that one is retired. */
  live(step: Step): Step {
    if (this.#retired.size === 0) return step;
    let id = this.#renamed.get(step.id);
    if (id === undefined) {
      if (!this.#retired.has(step.id)) return step;
      let n = 1;
      while (this.#retired.has(`${step.id}~${n}`)) n++;
      id = `${step.id}~${n}`;
      this.#renamed.set(step.id, id);
    }
    return { ...step, id };
  }
}
