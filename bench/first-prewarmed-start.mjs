// One prewarmed `Agent.start()` in a fresh process: `prewarmHarness()`, a pause, then the timed
// `start()`, which pays every first-use cost of the SDK in this process (the bench's own rows run in
// a process that started agents before). Prints the time in ms. Spawned by measure-sdk.mjs.
import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import { Agent, prewarmHarness } from "@antigravity-ts/node";

const [harnessPath, pauseMs] = process.argv.slice(2);
const harness = await prewarmHarness({ harnessPath, timeoutMs: 30_000 });
await sleep(Number(pauseMs)); // an application prewarms well before its first start()
const start = performance.now();
const agent = await Agent.builder().transport(harness).allowAll().build().start({ timeoutMs: 30_000 });
const elapsedMs = performance.now() - start;
await agent.stop();
process.stdout.write(`${elapsedMs}\n`);
