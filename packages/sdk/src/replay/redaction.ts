import { REDACTED, type JsonValue } from "./trace-format.js";

/** Where a string being recorded sits: which part of the trace, and its path from that part's root. */
export interface RedactionContext {
  /** `"handshake"` (its `input`/`output`), or the side whose frame holds the string. */
  readonly source: "handshake" | "client" | "peer";
  /** Object keys and array indices from the frame (or handshake) root to the string. */
  readonly path: readonly (string | number)[];
}

/** How a recorder keeps secrets out of a trace. */
export interface RedactionOptions {
  /**
   * Literal strings masked wherever they appear in anything recorded (your own keys, tokens,
   * passwords). Values the default rules redact are added as they are found, so a key sent in
   * the init frame is masked if the harness echoes it later.
   */
  secrets?: readonly string[];
  /**
   * Called for every string after the default rules: return a replacement (e.g. {@link REDACTED},
   * or a placeholder for a machine path) or `undefined` to keep it.
   */
  redact?: (value: string, context: RedactionContext) => string | undefined;
  /** The default rules (secret-named keys, header and env maps, bearer tokens, key query parameters). Default true. */
  redactDefaults?: boolean;
}

/** Secret-looking keys, compared lower-case without `-` and `_`: `apiKey`, `x-goog-api-key`, `access_token`, `password`... */
const SECRET_KEY = /(?:apikey|token|secret|password|passwd|authorization|cookie|credentials?|privatekey)$/;
/** Maps whose every value is redacted, names kept: HTTP headers (`models[].geminiApiEndpoint.httpHeaders`, MCP) and environments. */
const MAP_KEY = /^(?:httpheaders|headers|env)$/;
const BEARER = /\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{6,}/g;
const KEY_PARAMETER = /([?&](?:key|api_?key|access_?token|token)=)[^&#\s"]+/gi;
/** Shorter values are not learned as secrets: masking them everywhere would mangle ordinary text. */
const MIN_LEARNED_SECRET = 6;

/**
 * Redacts what a recorder writes. The default rules replace the values of secret-named keys
 * and of header and environment maps, bearer tokens and `key=` query parameters; every literal
 * secret (given or found) is masked wherever it appears; the user's hook runs last.
 */
export class Redactor {
  readonly #secrets: string[] = [];
  readonly #defaults: boolean;
  readonly #hook: RedactionOptions["redact"];

  constructor(options: RedactionOptions = {}) {
    this.#defaults = options.redactDefaults ?? true;
    this.#hook = options.redact;
    for (const secret of options.secrets ?? []) this.learn(secret, 1);
  }

  /** Whether the user added secrets or a hook (the trace header says so). */
  get custom(): boolean {
    return this.#secrets.length > 0 || this.#hook !== undefined;
  }

  /** Masks `secret` from now on wherever it appears (the handshake's per-process key, say). */
  learn(secret: string, minLength = MIN_LEARNED_SECRET): void {
    if (secret.length < minLength || secret === REDACTED || this.#secrets.includes(secret)) return;
    this.#secrets.push(secret);
    this.#secrets.sort((a, b) => b.length - a.length); // a longer secret first, when one contains another
  }

  /** A redacted copy of a JSON value (a frame, or the handshake's input or output). */
  value(value: JsonValue, source: RedactionContext["source"]): JsonValue {
    if (this.#defaults) this.#learnFrom(value, false);
    return this.#walk(value, source, [], false);
  }

  /** A redacted copy of text that is not JSON (masked secrets and patterns only). */
  text(text: string, source: RedactionContext["source"]): string {
    return this.#string(text, source, [], false);
  }

  /** First pass: the secrets a frame carries under secret keys, so that the second pass masks them everywhere in it. */
  #learnFrom(value: JsonValue, secret: boolean): void {
    if (typeof value === "string") {
      if (secret) this.learn(value);
    } else if (Array.isArray(value)) {
      for (const item of value) this.#learnFrom(item, secret);
    } else if (value !== null && typeof value === "object") {
      for (const [key, item] of Object.entries(value)) this.#learnFrom(item, secret || isSecretKey(key));
    }
  }

  #walk(value: JsonValue, source: RedactionContext["source"], path: (string | number)[], secret: boolean): JsonValue {
    if (typeof value === "string") return this.#string(value, source, path, secret);
    if (Array.isArray(value)) return value.map((item, i) => this.#walk(item, source, [...path, i], secret));
    if (value === null || typeof value !== "object") return value;
    const out: { [key: string]: JsonValue } = {};
    for (const [key, item] of Object.entries(value)) {
      out[key] = this.#walk(
        item,
        source,
        [...path, key],
        secret || (this.#defaults && (isSecretKey(key) || MAP_KEY.test(normalizeKey(key)))),
      );
    }
    return out;
  }

  #string(
    value: string,
    source: RedactionContext["source"],
    path: readonly (string | number)[],
    secret: boolean,
  ): string {
    let out = secret && value !== "" ? REDACTED : value;
    if (this.#defaults && out !== REDACTED)
      out = out.replace(BEARER, `$1 ${REDACTED}`).replace(KEY_PARAMETER, `$1${REDACTED}`);
    for (const literal of this.#secrets) if (out.includes(literal)) out = out.split(literal).join(REDACTED);
    return this.#hook?.(out, { source, path }) ?? out;
  }
}

function normalizeKey(key: string): string {
  return key.toLowerCase().replace(/[-_]/g, "");
}

function isSecretKey(key: string): boolean {
  return SECRET_KEY.test(normalizeKey(key));
}
