import { isIPv6 } from "node:net";
import { setFlagsFromString } from "node:v8";

/**
 * Compiles Node's IPv6 address check before the harness listens on `::1` (Node runs it on every
 * host it listens on). V8 interprets a regular expression on its first runs and compiles it only
 * later; for Node's large IPv6 expression the interpreted first runs took 8–10 ms of the harness's
 * start on a 2-core machine, compiled at once 2–3 ms. So the check runs once with V8's tier-up
 * off, and tier-up is back on before anything else runs. A process started with its own
 * `regexp` V8 flags is left as it is.
 */
export function compileIpv6Check(): void {
  if ([...process.execArgv, process.env.NODE_OPTIONS ?? ""].some((argument) => argument.includes("regexp"))) return;
  setFlagsFromString("--no-regexp-tier-up");
  try {
    isIPv6("::1");
  } finally {
    setFlagsFromString("--regexp-tier-up");
  }
}
