// A parent for ndjson-streaming-session.test.ts: opens a session over the CLI (argv[2] is the
// harness), starts a slow turn and, once it streams, prints the session's child and every
// process below it (`{"tree":[…]}`), then ends at once without disposing anything
// (`process.exit`, or SIGKILL of itself when argv[3] is "kill"). The test checks that no process of the tree survives.
import { spawnStreamingSession } from "../ndjson-streaming-session.js";
import { processTree } from "./process-tree.js";

const session = spawnStreamingSession({ args: ["--harness", process.argv[2] ?? ""] });
await session.sendUserMessage("slow please");
for await (const event of session) {
  if (event.type !== "text") continue;
  process.stdout.write(`${JSON.stringify({ tree: processTree(session.pid ?? -1) })}\n`);
  if (process.argv[3] === "kill") process.kill(process.pid, "SIGKILL");
  process.exit(0);
}
