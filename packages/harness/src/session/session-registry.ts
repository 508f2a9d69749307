import type { ClientPort } from "../loop/client-port.js";

/** A session's hold on its cascade id. */
export interface SessionClaim {
  /** The connection is closing: a new connection for this id waits for {@link release} instead of being refused. */
  markClosing(): void;
  /** The session is closed and persisted; the id is free. */
  release(): void;
}

/** A session held across a client disconnect, waiting for a client to adopt it (session.ts). */
export interface ParkedSession {
  /** Continues the session on `port`, whose first frame asked to resume this id. */
  adopt(port: ClientPort): void;
}

/** The id is held by a live connection. */
export class SessionBusyError extends Error {
  override readonly name = "SessionBusyError";
}

/**
 * Cascade ids with a connection, process-wide: one connection per session at a time. A client
 * that reconnects right after closing waits until the old connection has persisted the session.
 */
export class SessionRegistry {
  readonly #held = new Map<string, { closing: boolean; released: Promise<void> }>();
  readonly #parked = new Map<string, ParkedSession>();

  /**
   * Holds a session whose client left while a tool call waited for its confirmation (§8): it
   * keeps its claim, and a client resuming `id` adopts it ({@link parked}) instead of loading it.
   */
  park(id: string, session: ParkedSession): void {
    this.#parked.set(id, session);
  }

  /** The held session of `id`, if any. */
  parked(id: string): ParkedSession | undefined {
    return this.#parked.get(id);
  }

  /** Ends the hold of `session` (adopted, expired or shut down). */
  unpark(id: string, session: ParkedSession): void {
    if (this.#parked.get(id) === session) this.#parked.delete(id);
  }

  /** Claims `id`; throws {@link SessionBusyError} while another live connection holds it. */
  async claim(id: string): Promise<SessionClaim> {
    for (let holder = this.#held.get(id); holder !== undefined; holder = this.#held.get(id)) {
      if (!holder.closing) throw new SessionBusyError(`session ${id} is already open on another connection`);
      await holder.released;
    }
    let release!: () => void;
    const entry = { closing: false, released: new Promise<void>((resolve) => (release = resolve)) };
    this.#held.set(id, entry);
    return {
      markClosing: () => {
        entry.closing = true;
      },
      release: () => {
        if (this.#held.get(id) === entry) this.#held.delete(id);
        release();
      },
    };
  }
}
