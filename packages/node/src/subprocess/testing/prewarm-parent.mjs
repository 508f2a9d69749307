// A parent process for the prewarm test: prewarms a fake harness, prints the harness pid and then
// simply runs out of work without disposing it. The prewarmed harness must neither keep this
// process alive nor outlive it.
// Run with: node --conditions=antigravity-source --import tsx prewarm-parent.mjs
import { fileURLToPath } from "node:url";
import { SubprocessTransport } from "../subprocess-transport.ts";

const transport = new SubprocessTransport({
  harnessPath: fileURLToPath(new URL("./fake-harness.mjs", import.meta.url)),
});
const prewarmed = await transport.prewarm({ timeoutMs: 20_000 });
process.stdout.write(`${prewarmed.pid}\n`);
