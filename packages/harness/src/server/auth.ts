import { createHash, randomBytes, timingSafeEqual } from "node:crypto";

/** A fresh per-process key for `OutputConfig.apiKey` (§3): 32 random bytes, base64url. */
export function generateApiKey(): string {
  return randomBytes(32).toString("base64url");
}

/**
 * Compares a presented `x-goog-api-key` with the expected one in constant time. Both sides are
 * hashed first so that neither the content nor the length of the key leaks through timing.
 */
export function apiKeyMatches(presented: string | string[] | undefined, expected: string): boolean {
  if (typeof presented !== "string") return false;
  const a = createHash("sha256").update(presented).digest();
  const b = createHash("sha256").update(expected).digest();
  return timingSafeEqual(a, b);
}
