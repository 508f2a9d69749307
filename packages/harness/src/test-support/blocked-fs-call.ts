import { open } from "node:fs";

// Preloaded into a harness subprocess (`--import`) by the shutdown tests: parks one libuv
// threadpool thread in a blocking open() of the FIFO named by BLOCKED_FS_FIFO (nobody ever opens
// its other end), as a hung network mount would. The harness must still exit.

const fifo = process.env["BLOCKED_FS_FIFO"];
if (fifo !== undefined && fifo !== "") open(fifo, "r", () => {});
