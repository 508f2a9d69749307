import { isIP } from "node:net";

/**
 * Runs Node's check of whether `host` is an IP address twice. Node makes that check (`net.isIP`)
 * before it resolves a host name to connect; its first two runs execute V8's large IPv6 regular
 * expression before it is compiled (measured 12–17 ms, then 2–3 ms, then nothing, on a loaded
 * 2-core machine). The subprocess transport runs it while the harness boots, so the socket open to
 * `localhost` (protocol §4) that follows the handshake, or a prewarmed `start()`, does not pay it.
 */
export function warmHostCheck(host = "localhost"): void {
  isIP(host);
  isIP(host);
}
