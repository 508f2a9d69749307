// The runtime's WebSocket for WebSocketTransport: `ws` on Node, the global WebSocket in browsers
// and Workers (isomorphic-ws picks by the "browser" field). Deno reads the package's "imports" map
// and gets its global WebSocket directly (which sends the key header; see createSocket): through
// isomorphic-ws's Node entry it would load `ws`, which reads WS_NO_BUFFER_UTIL and so demands
// --allow-env. Kept in a .js file with its own .d.ts so the type checker never loads @types/ws,
// whose Node globals must not leak into this package.
export { default as DefaultWebSocket } from "#default-websocket";
