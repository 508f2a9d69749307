import {
  HarnessConfig_SessionContinuationMode as Continuation,
  InitializeConversationEventSchema,
  create,
  decodeInitializeConversationEvent,
  decodeOutputEvent,
  encodeInitializeConversationEvent,
  type HarnessConfig,
} from "@antigravity-ts/sdk/wire";
import { SdkError } from "@antigravity-ts/sdk";
import type { LogThrottle } from "@antigravity-ts/sdk/internal";
import { remoteAddress } from "./gateway-log.js";
import { GatewayCloseCode, truncateReason } from "./gateway-relay.js";
import type { PageIdentity, SessionRules } from "./gateway-session.js";
import { ConfigRefusal, pinSessionConfig } from "./pin-session-config.js";
import type { SessionOwnership } from "./session-ownership.js";

/** What to do with a page's first frame: send the rewritten frame to the harness, or close the page. */
export type Admission = { ok: true; frame: string } | { ok: false; code: number; reason: string };

/** What a {@link PageGate} needs. */
export interface PageGateOptions {
  rules: SessionRules;
  ownership: SessionOwnership;
  page: PageIdentity;
  /** Largest first frame accepted, in UTF-8 bytes. */
  maxFirstFrameBytes: number;
  /** The gateway's rate-limited log. */
  log: LogThrottle;
}

/**
 * The gateway's control over one page's session (issue 8 item 2). `admit` checks the page's first
 * frame, an `InitializeConversationEvent` (§5), puts the operator's settings into it and checks
 * that a resumed session is the page's own; `harnessFirstFrame` reads the harness's answer
 * (`initializeConversationResponse`, §5) to bind the session id to the page's token.
 */
export class PageGate {
  readonly #options: PageGateOptions;
  #creates = false;

  constructor(options: PageGateOptions) {
    this.#options = options;
  }

  /** Never throws: a page's mistake or attack becomes a refusal with a close code and reason. */
  async admit(frame: string): Promise<Admission> {
    const { maxFirstFrameBytes, rules, log, page } = this.#options;
    const bytes = Buffer.byteLength(frame, "utf8");
    if (bytes > maxFirstFrameBytes)
      return this.#refuse(
        GatewayCloseCode.MessageTooBig,
        `first frame of ${bytes} bytes exceeds the gateway's limit of ${maxFirstFrameBytes}`,
      );
    let config: HarnessConfig;
    try {
      config = parseFirstFrame(frame);
    } catch (error) {
      return this.#refuse(
        GatewayCloseCode.InvalidPayload,
        error instanceof ConfigRefusal
          ? error.message
          : `malformed InitializeConversationEvent: ${SdkError.from(error).message}`,
      );
    }
    try {
      const notes = pinSessionConfig(config, rules);
      const continuation = await this.#continuation(config);
      if (continuation !== undefined) notes.push(continuation);
      if (notes.length > 0)
        log.note(
          "override",
          `page from ${remoteAddress(page.request)}: ${notes.join("; ")}`,
          "pages whose configuration the gateway changed",
        );
    } catch (error) {
      if (error instanceof ConfigRefusal) return this.#refuse(GatewayCloseCode.PolicyViolation, error.message);
      throw error;
    }
    return {
      ok: true,
      frame: encodeInitializeConversationEvent(create(InitializeConversationEventSchema, { config })),
    };
  }

  /** Binds the session the harness started (§5 `initializeConversationResponse.cascadeId`) to the page's token. */
  harnessFirstFrame(frame: string): void {
    const { ownership, page, rules } = this.#options;
    let cascadeId: string | undefined;
    try {
      const event = decodeOutputEvent(frame).event;
      if (event.case === "initializeConversationResponse") cascadeId = event.value.cascadeId;
    } catch {
      return; // not the answer of a ≥0.1.4 harness: nothing to bind, so nothing can be resumed
    }
    if (!cascadeId) return;
    ownership.bind(cascadeId, page.token);
    if (this.#creates) {
      try {
        rules.onSessionCreated?.(cascadeId, page);
      } catch {
        // The operator's bookkeeping must not break the session.
      }
    }
  }

  /**
   * A page may resume only its own sessions (or ones `authorizeResume` grants). An id the gateway
   * does not know is only created, never resumed: the mode becomes CREATE_ONLY, so the harness
   * refuses it if someone else's session has that id.
   */
  async #continuation(config: HarnessConfig): Promise<string | undefined> {
    const { ownership, page } = this.#options;
    const id = config.cascadeId ?? "";
    const mode = config.sessionContinuationMode ?? Continuation.SESSION_CONTINUATION_MODE_UNSPECIFIED;
    if (id === "") {
      this.#creates = true;
      return undefined;
    }
    const owner = ownership.ownership(id, page.token);
    if (owner === "mine" || (await this.#authorized(id))) {
      this.#creates = mode === Continuation.CREATE_ONLY;
      return undefined;
    }
    if (owner === "other" || mode === Continuation.RESUME) {
      throw new ConfigRefusal(
        `session ${id.slice(0, 8)}… was not created by this page; a page may resume only its own sessions`,
      );
    }
    this.#creates = true;
    if (mode === Continuation.CREATE_ONLY) return undefined;
    config.sessionContinuationMode = Continuation.CREATE_ONLY;
    return "unknown session id: create only, never resume";
  }

  async #authorized(id: string): Promise<boolean> {
    const authorize = this.#options.rules.authorizeResume;
    if (authorize === undefined) return false;
    try {
      return (await authorize(id, this.#options.page)) === true;
    } catch {
      return false;
    }
  }

  #refuse(code: number, reason: string): Admission {
    return { ok: false, code, reason: truncateReason(reason) };
  }
}

/** §5: the first frame must be `{"config": {...}}`; anything else is refused before it is decoded. */
function parseFirstFrame(frame: string): HarnessConfig {
  let json: unknown;
  try {
    json = JSON.parse(frame);
  } catch {
    throw new ConfigRefusal('the first frame is not JSON; send an InitializeConversationEvent {"config": …}');
  }
  const config =
    typeof json === "object" && json !== null && !Array.isArray(json)
      ? (json as Record<string, unknown>)["config"]
      : undefined;
  if (typeof config !== "object" || config === null || Array.isArray(config)) {
    throw new ConfigRefusal('the first frame must be an InitializeConversationEvent {"config": {…}}');
  }
  const decoded = decodeInitializeConversationEvent(frame).config;
  if (decoded === undefined) throw new ConfigRefusal("the first frame has no config");
  return decoded;
}
