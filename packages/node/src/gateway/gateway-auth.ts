import { timingSafeEqual } from "node:crypto";
import type { IncomingMessage } from "node:http";

/** Prefix of the subprotocol that carries the client token: `antigravity.token.<token>`. */
export const GATEWAY_TOKEN_PROTOCOL_PREFIX = "antigravity.token.";

/** Which page origins may connect: exact origins (`"https://app.example"`), or a predicate. */
export type OriginPolicy = readonly string[] | ((origin: string | undefined, request: IncomingMessage) => boolean);

/** The per-client token: one shared secret, or a verifier (e.g. a signed, expiring session token). */
export type TokenPolicy = string | ((token: string, request: IncomingMessage) => boolean | Promise<boolean>);

/** True when the request's `Origin` is allowed. A missing Origin only passes a predicate that accepts it. */
export function isOriginAllowed(policy: OriginPolicy, request: IncomingMessage): boolean {
  const origin = request.headers.origin;
  if (typeof policy === "function") return policy(origin, request);
  return origin !== undefined && policy.includes(origin);
}

/** A token the browser presented and how: query `?token=` or the `antigravity.token.<token>` subprotocol. */
export interface PresentedToken {
  token: string;
  /** The subprotocol to echo back when the token came that way (browsers require the echo). */
  protocol?: string;
}

/** Extracts the client token from the upgrade request; the query parameter wins. */
export function presentedToken(request: IncomingMessage): PresentedToken | undefined {
  const query = new URL(request.url ?? "/", "http://gateway.invalid").searchParams.get("token");
  if (query !== null && query !== "") return { token: query };
  const offered = request.headers["sec-websocket-protocol"];
  for (const protocol of (offered ?? "").split(",").map((p) => p.trim())) {
    if (protocol.startsWith(GATEWAY_TOKEN_PROTOCOL_PREFIX) && protocol.length > GATEWAY_TOKEN_PROTOCOL_PREFIX.length) {
      return { token: protocol.slice(GATEWAY_TOKEN_PROTOCOL_PREFIX.length), protocol };
    }
  }
  return undefined;
}

/** Checks a presented token against the policy, in constant time for a shared secret. */
export async function isTokenValid(
  policy: TokenPolicy,
  presented: PresentedToken | undefined,
  request: IncomingMessage,
): Promise<boolean> {
  if (presented === undefined) return false;
  if (typeof policy === "function") return policy(presented.token, request);
  const given = Buffer.from(presented.token, "utf8");
  const expected = Buffer.from(policy, "utf8");
  return given.length === expected.length && timingSafeEqual(given, expected);
}
