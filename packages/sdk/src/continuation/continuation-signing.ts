import { ErrorCode, SdkError } from "../errors.js";
import { canonicalJson } from "./canonical-json.js";
import { CONTINUATION_VERSION, parseContinuation, type Continuation } from "./continuation.js";

/** A WebCrypto `CryptoKey`, as far as the SDK looks at one (its libs carry no DOM types). */
export interface WebCryptoKey {
  readonly algorithm: unknown;
  readonly type: string;
}

/** The part of WebCrypto's `SubtleCrypto` used here. */
interface Subtle {
  importKey(
    format: "raw",
    key: Uint8Array<ArrayBuffer>,
    algorithm: { name: "HMAC"; hash: "SHA-256" },
    extractable: boolean,
    usages: string[],
  ): Promise<WebCryptoKey>;
  sign(algorithm: "HMAC", key: WebCryptoKey, data: Uint8Array<ArrayBuffer>): Promise<ArrayBuffer>;
  verify(
    algorithm: "HMAC",
    key: WebCryptoKey,
    signature: Uint8Array<ArrayBuffer>,
    data: Uint8Array<ArrayBuffer>,
  ): Promise<boolean>;
}

/**
 * The secret a continuation is signed with: at least 32 bytes (a string is taken as its UTF-8
 * bytes), or an HMAC-SHA-256 `CryptoKey` usable for `sign`/`verify`.
 */
export type ContinuationSecret = string | Uint8Array | WebCryptoKey;

/** Shortest secret accepted, in bytes (the HMAC-SHA-256 output size; RFC 2104 §3). */
export const MIN_SECRET_BYTES = 32;

const PREFIX = "hmac-sha256:";

/**
 * Signs `continuation` with HMAC-SHA-256 (WebCrypto `crypto.subtle`, present in Node ≥ 20,
 * browsers, workerd and Deno) over the canonical JSON of `{ version, payload }`. Returns a copy
 * carrying `signature`; an existing signature is replaced.
 */
export async function signContinuation(continuation: Continuation, secret: ContinuationSecret): Promise<Continuation> {
  const key = await hmacKey(secret);
  const mac = new Uint8Array(await subtle().sign("HMAC", key, signedBytes(continuation)));
  return { version: continuation.version, payload: continuation.payload, signature: `${PREFIX}${base64url(mac)}` };
}

/**
 * Parses and checks a continuation before it is resumed, failing closed. Without `secret`:
 * {@link parseContinuation}'s checks, and a signed envelope is refused (it cannot be checked).
 * With `secret`: the envelope must be signed, and the signature must match the canonical JSON of
 * its `{ version, payload }` under that secret — otherwise `PermissionDenied` (altered, forged,
 * or signed with another secret). The comparison is WebCrypto's `verify` (constant time). A
 * signature has one accepted spelling, the canonical base64url of its bytes (`InvalidArgument`
 * otherwise): a page cannot present the same signature under four names.
 */
export async function verifyContinuation(value: unknown, secret?: ContinuationSecret): Promise<Continuation> {
  const continuation = parseContinuation(value);
  if (secret === undefined) {
    if (continuation.signature !== undefined)
      throw new SdkError(
        ErrorCode.InvalidArgument,
        "the continuation is signed: pass the secret it was signed with to check it",
        { details: { reason: "secret-missing" } },
      );
    return continuation;
  }
  if (continuation.signature === undefined)
    throw denied(
      "the continuation is not signed, but a secret was given: refusing an unsigned continuation",
      "unsigned",
    );
  const mac = fromBase64url(continuation.signature.slice(PREFIX.length));
  const ok = await subtle().verify("HMAC", await hmacKey(secret), mac, signedBytes(continuation));
  if (!ok)
    throw denied(
      "the continuation's signature does not match: it was altered, forged, or signed with another secret",
      "bad-signature",
    );
  return continuation;
}

function signedBytes(continuation: Continuation): Uint8Array<ArrayBuffer> {
  if (continuation.version !== CONTINUATION_VERSION)
    throw new SdkError(
      ErrorCode.FailedPrecondition,
      `continuation version ${String(continuation.version)} is not supported`,
    );
  return new TextEncoder().encode(canonicalJson({ version: continuation.version, payload: continuation.payload }));
}

async function hmacKey(secret: ContinuationSecret): Promise<WebCryptoKey> {
  if (typeof secret === "object" && !(secret instanceof Uint8Array)) {
    const algorithm = secret.algorithm as { name?: string; hash?: { name?: string } };
    if (algorithm.name !== "HMAC" || algorithm.hash?.name !== "SHA-256")
      throw new SdkError(ErrorCode.InvalidArgument, "the continuation secret must be an HMAC SHA-256 CryptoKey");
    return secret;
  }
  const bytes = typeof secret === "string" ? new TextEncoder().encode(secret) : new Uint8Array(secret);
  if (bytes.length < MIN_SECRET_BYTES)
    throw new SdkError(
      ErrorCode.InvalidArgument,
      `the continuation secret has ${bytes.length} bytes; use at least ${MIN_SECRET_BYTES} random bytes`,
    );
  return subtle().importKey("raw", bytes, { name: "HMAC", hash: "SHA-256" }, false, ["sign", "verify"]);
}

function subtle(): Subtle {
  const crypto = (globalThis as { crypto?: { subtle?: Subtle } }).crypto;
  if (crypto?.subtle === undefined)
    throw new SdkError(
      ErrorCode.FailedPrecondition,
      "this runtime has no WebCrypto (globalThis.crypto.subtle); continuations cannot be signed or checked here",
    );
  return crypto.subtle;
}

function denied(message: string, reason: string): SdkError {
  return new SdkError(ErrorCode.PermissionDenied, message, { details: { reason } });
}

function base64url(bytes: Uint8Array): string {
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/**
 * Decodes the canonical base64url of a MAC and only that: 43 characters carry 258 bits for 32
 * bytes, and `atob` ignores the 2 left over, so four spellings would decode to one signature.
 * One that does not re-encode to itself is refused like any other malformed signature.
 */
function fromBase64url(text: string): Uint8Array<ArrayBuffer> {
  const binary = atob(text.replace(/-/g, "+").replace(/_/g, "/"));
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  if (base64url(bytes) !== text)
    throw new SdkError(
      ErrorCode.InvalidArgument,
      "not a usable continuation: its signature is not the canonical base64url of its bytes (unused bits are set)",
      {
        details: { reason: "malformed" },
      },
    );
  return bytes;
}
