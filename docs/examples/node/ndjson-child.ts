// Drives an agent from another program through the `antigravity` CLI's NDJSON mode
// (docs/ndjson.md): user messages as JSON lines on the child's stdin, events as JSON lines on
// its stdout. Nothing here needs the SDK: any language that can spawn a process can do this.
// Runs against the bundled reference harness when no `localharness` is configured.
//
//   npx tsx --conditions=antigravity-source docs/examples/node/ndjson-child.ts
//
// In your own project, spawn the installed CLI instead: spawn("npx", ["antigravity", ...ARGS]).
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";

const ARGS = ["--input-format", "ndjson", "--output-format", "ndjson", "--mid-turn", "queue"];
const cli = fileURLToPath(new URL("../../../packages/cli/src/cli.ts", import.meta.url));
const child = spawn(process.execPath, [...process.execArgv, cli, ...ARGS], { stdio: ["pipe", "pipe", "inherit"] });

const send = (line: object): void => void child.stdin.write(`${JSON.stringify(line)}\n`);
const prompts = ["What is the weather in Oslo?", "please run the tests"];

for await (const raw of createInterface({ input: child.stdout })) {
  const event = JSON.parse(raw) as { type: string; [key: string]: unknown };
  switch (event.type) {
    case "init":
      console.log(`session ${String(event.conversationId)} (format version ${String(event.version)})`);
      send({ type: "user_message", content: prompts[0], id: "first" });
      break;
    case "receipt":
      console.log(`receipt: message ${String(event.id ?? event.messageIndex)} started turn ${String(event.turnIndex)}`);
      break;
    case "text":
      process.stdout.write(String(event.text));
      break;
    case "toolCall":
      console.log(`\n[tool call: ${(event.toolCall as { name: string }).name}]`);
      break;
    case "confirmationRequest": {
      const call = event.toolCall as { name: string; args: unknown };
      console.log(`\napproving ${call.name} ${JSON.stringify(call.args)}`);
      send({ type: "approve", requestId: event.requestId });
      break;
    }
    case "result": {
      const usage = event.usage as { totalTokenCount?: number };
      console.log(
        `\nturn ${String(event.turnIndex)} ${event.success === true ? "completed" : "did not complete"}, ${usage.totalTokenCount ?? 0} tokens`,
      );
      const next = prompts[Number(event.turnIndex) + 1];
      if (next !== undefined) send({ type: "user_message", content: next, id: "second" });
      else child.stdin.end(); // end of input: the CLI finishes and exits
      break;
    }
    case "error":
      console.log(`\nerror line: ${JSON.stringify(event.error)}`);
      break;
  }
}
const code = await new Promise<number | null>((resolve) =>
  child.exitCode !== null ? resolve(child.exitCode) : child.once("exit", resolve),
);
console.log(`the CLI exited with ${String(code)}`);
