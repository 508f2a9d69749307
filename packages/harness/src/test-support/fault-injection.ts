import WebSocket from "ws";

// Preloaded into a harness subprocess (`--import`) by the crash-guard tests: simulates a bug in
// one session. When the harness sends a frame containing a marker, a fault is raised outside any
// try/catch, in the async context of the session that sent it:
//   `inject-uncaught-fault`   → an exception thrown from a timer (uncaughtException);
//   `inject-rejected-fault`   → a promise rejected with no handler (unhandledRejection).
// Never import this module into a test process: it patches `ws` for everyone in the process.

const UNCAUGHT_MARKER = "inject-uncaught-fault";
const REJECTION_MARKER = "inject-rejected-fault";

const send = WebSocket.prototype.send;

WebSocket.prototype.send = function (this: WebSocket, data: unknown, ...rest: unknown[]): void {
  if (typeof data === "string" && data.includes(UNCAUGHT_MARKER)) {
    setTimeout(() => {
      throw new Error(`injected fault: ${UNCAUGHT_MARKER}`);
    }, 0);
  } else if (typeof data === "string" && data.includes(REJECTION_MARKER)) {
    setTimeout(() => void Promise.reject(new Error(`injected fault: ${REJECTION_MARKER}`)), 0);
  }
  (send as (this: WebSocket, ...args: unknown[]) => void).call(this, data, ...rest);
};
