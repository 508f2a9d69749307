import { createHash } from "node:crypto";

/** Whose a session id is, as far as this gateway knows. */
export type Ownership = "mine" | "other" | "unknown";

/**
 * Which page token created which session through this gateway (issue 8 item 2: a page may
 * resume only sessions it created). Tokens are kept as SHA-256 digests, never in clear. In memory
 * and bounded: past `maxEntries` the least recently used binding is forgotten, after which that
 * session can be resumed only through the operator's `authorizeResume`.
 */
export class SessionOwnership {
  readonly #owners = new Map<string, string>();
  readonly #maxEntries: number;

  constructor(maxEntries = 10_000) {
    this.#maxEntries = maxEntries;
  }

  /** Records that the page holding `token` owns `cascadeId` (and marks it recently used). */
  bind(cascadeId: string, token: string): void {
    this.#owners.delete(cascadeId);
    this.#owners.set(cascadeId, digest(token));
    if (this.#owners.size > this.#maxEntries) {
      const oldest = this.#owners.keys().next();
      if (oldest.done !== true) this.#owners.delete(oldest.value);
    }
  }

  /** Whether `cascadeId` was created with `token`, with another token, or not through this gateway. */
  ownership(cascadeId: string, token: string): Ownership {
    const owner = this.#owners.get(cascadeId);
    if (owner === undefined) return "unknown";
    return owner === digest(token) ? "mine" : "other";
  }
}

function digest(token: string): string {
  return createHash("sha256").update(token, "utf8").digest("hex");
}
