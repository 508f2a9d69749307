import type { IncomingMessage } from "node:http";

/** Where the gateway writes its log lines (one line per call, no trailing newline). */
export type GatewayLogSink = (line: string) => void;

/** The default sink: standard error, prefixed so the lines can be told apart from the app's. */
export const stderrSink: GatewayLogSink = (line) => void process.stderr.write(`antigravity gateway: ${line}\n`);

/** The peer address of a request, for log lines. */
export function remoteAddress(request: IncomingMessage): string {
  return request.socket.remoteAddress ?? "?";
}
