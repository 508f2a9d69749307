// The frame codec moved to wire/frame-codec.ts (issue 24 item 8: fast paths live in wire/ or util/).
// This re-export keeps harness-connection.ts building until it imports from there; then it goes.
export { encodeInitFrame, encodeInputFrame } from "../wire/frame-codec.js";
