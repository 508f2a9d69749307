import { createHash } from "node:crypto";

/** Ids used as file names as they are: lower case (so case-insensitive file systems cannot merge two ids), no dots, no separators. */
const PLAIN_ID = /^[a-z0-9_-]{1,200}$/;
/** Names Windows reserves in every directory, with any extension. */
const RESERVED = /^(con|prn|aux|nul|com\d|lpt\d)$/;

/**
 * The file name of a conversation's snapshot: `<id>.json` for a plain lower-case id, else
 * `~<sha-256 of the id>.json`. No id can name a path outside the store directory (`../`, `/`,
 * NUL), collide with another id (the `~` form never equals a plain one), or exceed the file name
 * limit. The snapshot inside names its id, so `load` checks it got the right one.
 */
export function snapshotFileName(conversationId: string): string {
  if (PLAIN_ID.test(conversationId) && !RESERVED.test(conversationId)) return `${conversationId}.json`;
  return `~${createHash("sha256").update(conversationId, "utf8").digest("hex")}.json`;
}

/** Temporary files of a save: `.<name>.<pid>.<12 hex>.tmp`, in the store directory (same file system as the target). */
export const TEMP_FILE = /^\.(.+\.json)\.(\d+)\.[0-9a-f]{12}\.tmp$/;

/** Where `load` moves an unusable file: `<name>.corrupt-<time>-<6 hex>`, beside it. */
export function movedAsideName(name: string, random: string): string {
  return `${name}.corrupt-${new Date().toISOString().replace(/[:.]/g, "-")}-${random}`;
}
