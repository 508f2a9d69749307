import type { LocalharnessEra } from "@antigravity-ts/sdk/internal";
import type { ClientPort } from "../loop/client-port.js";
import type { CommandSandboxDefaults } from "../loop/settings.js";
import type { Logger } from "../log.js";
import type { ScriptFile } from "../providers/script-format.js";
import { HarnessSession } from "./session.js";
import { CloseCode, type SessionDependencies } from "./session-init.js";
import { SessionRegistry } from "./session-registry.js";
import type { SessionStore } from "../loop/stored-sessions.js";
import { ToolWorkerPool } from "../tools/tool-pool.js";
import { definedProperties } from "@antigravity-ts/sdk/internal";

/** What every session of one harness shares, whatever carries its connections. */
export interface SessionHostOptions {
  store: SessionStore;
  /** Workspace of sessions whose config names none. */
  workspace: string;
  /** Environment of tool subprocesses, used as given: build it with `commandEnvironment` (never the harness's own environment). */
  toolEnv: Readonly<Record<string, string>>;
  /** Environment for model selection. */
  env: Readonly<Record<string, string | undefined>>;
  /** What run_command's sandbox hides and whether it keeps the network (default: hides nothing more, network on). */
  sandbox?: CommandSandboxDefaults | undefined;
  script?: ScriptFile | undefined;
  log: Logger;
  /** Injected into HTTP model providers (tests). */
  fetch?: typeof fetch | undefined;
  /** Time limit of one file-tool call on its worker thread, in ms (default 30 s). */
  toolTimeoutMs?: number | undefined;
  /** How long a session whose client left during a tool confirmation keeps that turn, in ms (default 10 min; 0 = not at all). */
  confirmationHoldMs?: number | undefined;
  /**
   * The wire era of the clients, when the harness knows it (stdio mode: from the handshake's
   * `ClientInfo`, `eraOfClientInfo`). A session whose first frame shows its era's spelling uses
   * that; otherwise this; otherwise the newest. Fields a 0.1.14 client does not know are not written to it.
   */
  clientEra?: LocalharnessEra | undefined;
}

/**
 * The sessions of one harness: each accepted {@link ClientPort} becomes a {@link HarnessSession}
 * with the shared store, session registry and file-tool workers. The WebSocket server
 * (server.ts) and the in-memory harness (in-memory-harness.ts) are two front doors to it.
 */
export class SessionHost {
  readonly #sessions = new Set<HarnessSession>();
  readonly #toolWorkers: ToolWorkerPool;
  readonly #deps: SessionDependencies;
  #closing: Promise<void> | undefined;

  constructor(options: SessionHostOptions) {
    this.#toolWorkers = new ToolWorkerPool(definedProperties({ timeoutMs: options.toolTimeoutMs }));
    this.#deps = {
      store: options.store,
      registry: new SessionRegistry(),
      defaults: {
        workspace: options.workspace,
        env: options.toolEnv,
        toolWorkers: this.#toolWorkers,
        sandbox: options.sandbox ?? { hidden: [], network: true },
      },
      env: options.env,
      log: options.log,
      ...definedProperties({
        script: options.script,
        fetch: options.fetch,
        confirmationHoldMs: options.confirmationHoldMs,
        clientEra: options.clientEra,
      }),
    };
  }

  /** Sessions currently connected. */
  get sessionCount(): number {
    return this.#sessions.size;
  }

  /** Starts a session on a new client connection. */
  accept(port: ClientPort): void {
    const session = new HarnessSession(port, this.#deps);
    this.#sessions.add(session);
    void session.settled.then(() => this.#sessions.delete(session));
  }

  /** Closes every session (code 1001), waits until each is persisted, then stops the tool workers. Idempotent. */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      const open = [...this.#sessions];
      for (const session of open) session.close(CloseCode.goingAway, "harness shutting down");
      await Promise.all(open.map((session) => session.settled));
      await this.#toolWorkers.close();
    })();
    return this.#closing;
  }
}
