/**
 * Target of the `default` export condition of `@antigravity-ts/node`: reached only by runtimes
 * that are not Node (browsers, Workers, Deno without node compat). Importing it fails loudly
 * instead of half-working without child processes and sockets.
 * @module
 */
throw new Error(
  "@antigravity-ts/node only runs on Node.js; in browsers, Workers and Deno use @antigravity-ts/sdk with WebSocketTransport",
);

export {};
