/** The message of a thrown value for a human-readable line: an `Error`'s message, else the value as text. */
export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
