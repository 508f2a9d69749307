import { randomUUID } from "node:crypto";
import type { HarnessConfig } from "@antigravity-ts/sdk/wire";
import {
  HarnessConfig_SessionContinuationMode as ContinuationMode,
  createMessage,
  decodeInitFrameFully,
  definedProperties,
  NEWEST_LOCALHARNESS_ERA,
  readFrameOfEitherEra,
  tryDecodeInitFrame,
  type LocalharnessEra,
} from "@antigravity-ts/sdk/internal";
import type { Logger } from "../log.js";
import type { ScriptFile } from "../providers/script-format.js";
import { ProviderConfigError, selectProvider } from "../providers/select-provider.js";
import { resolveSessionSettings, type SettingsDefaults } from "../loop/settings.js";
import { SessionState } from "../loop/state.js";
import { readStoredSteps } from "../loop/stored-steps.js";
import { SessionBusyError, SessionRegistry, type SessionClaim } from "./session-registry.js";
import { CASCADE_ID_PATTERN, StorageError, type SessionStore } from "../loop/stored-sessions.js";
import { unhonouredConfigFields } from "./unhonoured-config.js";

/** What every session of a server shares. */
export interface SessionDependencies {
  store: SessionStore;
  /** Cascade ids that have a connection, process-wide (one connection per session). */
  registry: SessionRegistry;
  defaults: SettingsDefaults;
  /** Environment for provider selection (`GEMINI_API_KEY`, `ANTIGRAVITY_MODEL_PROVIDER`, …). */
  env: Readonly<Record<string, string | undefined>>;
  /** Script of the scripted model (`--script` / `ANTIGRAVITY_SCRIPT`). */
  script?: ScriptFile;
  log: Logger;
  /** Injected into HTTP model providers (tests). */
  fetch?: typeof fetch;
  /** How long a session whose client left during a tool confirmation stays resumable with its turn, in ms; 0 = not at all (session.ts). */
  confirmationHoldMs?: number;
  /**
   * The wire era of the clients, when the harness knows it (stdio mode: from the handshake's
   * `ClientInfo`, `eraOfClientInfo`). A session whose first frame shows its era's spelling uses
   * that; otherwise this; otherwise the newest. Fields a 0.1.14 client does not know are not written to it.
   */
  clientEra?: LocalharnessEra | undefined;
}

/** Initialisation failed; the socket is closed with `code` and this message as reason. */
export class SessionInitError extends Error {
  override readonly name = "SessionInitError";
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

/** Close codes (RFC 6455 §7.4.1). */
export const CloseCode = {
  normal: 1000,
  goingAway: 1001,
  unsupportedData: 1003,
  invalidPayload: 1007,
  policy: 1008,
  internal: 1011,
} as const;

/** A successfully initialised session. */
export interface InitializedSession {
  state: SessionState;
  resumed: boolean;
  /** The session's hold on its id; the caller releases it once the session is closed and saved. */
  claim: SessionClaim;
  /** The client's wire era: its first frame's spelling, else `SessionDependencies.clientEra`, else the newest. */
  era: LocalharnessEra;
}

/**
 * Handles the first frame (§5): an `InitializeConversationEvent`. Resolves the cascade id
 * (generated when empty) against `sessionContinuationMode` and storage, claims the id in the
 * registry (the caller releases it), and builds the session state and model provider.
 */
export async function initializeSession(frame: string, deps: SessionDependencies): Promise<InitializedSession> {
  let json: unknown;
  try {
    json = JSON.parse(frame);
  } catch {
    throw new SessionInitError(
      CloseCode.invalidPayload,
      'the first frame is not JSON; send an InitializeConversationEvent {"config": …}',
    );
  }
  if (typeof json !== "object" || json === null || Array.isArray(json) || !("config" in json)) {
    const keys = typeof json === "object" && json !== null ? Object.keys(json).join(",") : typeof json;
    throw new SessionInitError(
      CloseCode.policy,
      `expected InitializeConversationEvent {"config": …} as the first frame, got {${keys}}`,
    );
  }
  // Either era's spelling (wire-era.ts): a 0.1.14 client's templateName is read as name.
  const read = readFrameOfEitherEra(json as Parameters<typeof readFrameOfEitherEra>[0]);
  const era = read.era ?? deps.clientEra ?? NEWEST_LOCALHARNESS_ERA;
  const text = read.frame === json ? frame : JSON.stringify(read.frame);
  let config;
  try {
    config =
      (tryDecodeInitFrame(text) ?? (await decodeInitFrameFully(text))).config ??
      createMessage<HarnessConfig>("antigravity.localharness.HarnessConfig");
  } catch (error) {
    throw new SessionInitError(CloseCode.invalidPayload, `invalid HarnessConfig: ${(error as Error).message}`);
  }
  const mode = config.sessionContinuationMode ?? ContinuationMode.SESSION_CONTINUATION_MODE_UNSPECIFIED;
  let cascadeId = config.cascadeId ?? "";
  // A random UUID made here names no stored session, so storage is not read for it (a file store's read is a round trip of the thread pool before the init response).
  const generated = cascadeId === "";
  if (generated) {
    if (mode === ContinuationMode.RESUME)
      throw new SessionInitError(
        CloseCode.policy,
        "sessionContinuationMode RESUME needs the cascadeId of the session to resume",
      );
    cascadeId = randomUUID();
  } else if (!CASCADE_ID_PATTERN.test(cascadeId)) {
    throw new SessionInitError(CloseCode.policy, "cascadeId must be 1-128 characters of [A-Za-z0-9_-]");
  }
  let claim: SessionClaim;
  try {
    claim = await deps.registry.claim(cascadeId);
  } catch (error) {
    throw new SessionInitError(CloseCode.policy, error instanceof SessionBusyError ? error.message : String(error));
  }
  try {
    let stored;
    try {
      stored = generated ? undefined : await deps.store.load(cascadeId);
    } catch (error) {
      throw new SessionInitError(
        CloseCode.internal,
        error instanceof StorageError ? error.message : `storage failed: ${(error as Error).message}`,
      );
    }
    // UNSPECIFIED behaves like CREATE_OR_RESUME (UNCONFIRMED; upstream sends it when the user chose nothing).
    if (mode === ContinuationMode.CREATE_ONLY && stored !== undefined)
      throw new SessionInitError(
        CloseCode.policy,
        `session ${cascadeId} already exists (sessionContinuationMode CREATE_ONLY)`,
      );
    if (mode === ContinuationMode.RESUME && stored === undefined)
      throw new SessionInitError(
        CloseCode.policy,
        `no stored session ${cascadeId} to resume in ${deps.store.location}`,
      );
    const settings = await resolveSessionSettings(config, deps.defaults);
    let selection;
    try {
      selection = selectProvider(config.models, {
        env: deps.env,
        retryConfig: config.retryConfig,
        ...definedProperties({ script: deps.script, fetch: deps.fetch }),
      });
    } catch (error) {
      throw new SessionInitError(
        CloseCode.policy,
        error instanceof ProviderConfigError ? error.message : `model setup failed: ${(error as Error).message}`,
      );
    }
    const log = deps.log.child(cascadeId.slice(0, 8));
    // Once per session, one line: every config field this harness does not honour.
    const ignored = [...unhonouredConfigFields(config), ...selection.warnings];
    if (ignored.length > 0) log.warn(`this harness does not honour: ${ignored.join("; ")}`);
    for (const notice of settings.notices) log.warn(notice);
    // Upstream's words (local_connection.py `warn_if_sandbox_unavailable`), said where the sandbox is decided.
    if (settings.sandboxRequested && settings.commandSandbox === undefined && settings.builtins.has("run_command"))
      log.warn(
        `enable_sandbox=True but the OS sandbox is unavailable in this harness environment (${settings.sandboxStatus.unavailableReason}); run_command will execute UNSANDBOXED.`,
      );
    log.info(
      `${stored === undefined ? "new" : "resumed"} session ${cascadeId}: model ${selection.reason}, workspace ${settings.workspace.roots.join(", ")}`,
    );
    const history = stored === undefined ? [] : await readStoredSteps(stored.history);
    const state = new SessionState({
      cascadeId,
      settings,
      provider: selection.provider,
      modelName: selection.model,
      log,
      ...(stored === undefined ? {} : { stored, history }),
    });
    if (stored === undefined) await deps.store.save(state.toStored());
    return { state, resumed: stored !== undefined, claim, era };
  } catch (error) {
    claim.release();
    if (error instanceof SessionInitError) throw error;
    throw new SessionInitError(CloseCode.internal, `session setup failed: ${(error as Error).message}`);
  }
}
