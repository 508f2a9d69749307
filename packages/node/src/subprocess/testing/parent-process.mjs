// A parent process for the orphan tests: starts a fake harness through SubprocessTransport,
// prints the harness pid, then either throws (uncaught) or waits for a signal.
// Run with: node --conditions=antigravity-source --import tsx parent-process.mjs <throw|wait>
import { fileURLToPath } from "node:url";
import { SubprocessTransport } from "../subprocess-transport.ts";

const transport = new SubprocessTransport({
  harnessPath: fileURLToPath(new URL("./fake-harness.mjs", import.meta.url)),
});
const channel = await transport.connect({ timeoutMs: 20_000 });
process.stdout.write(`${channel.pid}\n`);
if (process.argv[2] === "throw") throw new Error("parent failed on purpose");
setInterval(() => {}, 60_000);
