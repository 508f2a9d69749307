/** Options every async call accepts. */
export interface CallOptions {
  signal?: AbortSignal;
  timeoutMs?: number;
}
