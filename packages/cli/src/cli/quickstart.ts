import { performance } from "node:perf_hooks";
import type { ToolCall } from "@antigravity-ts/sdk";
import { discoverHarnessBinary } from "@antigravity-ts/node";
import type { CliOptions } from "./cli-args.js";
import { buildDemoAgent, commandLineOf, describeModel } from "./demo-agent.js";
import { describeHosted } from "./hosted-agent-command.js";
import { runTurn } from "./run-turn.js";
import type { CliOutput } from "./spinner.js";
import { TurnRenderer } from "./turn-renderer.js";
import { definedProperties } from "@antigravity-ts/sdk/internal";

/** The prompts of the quick start: tools and thoughts first, then a command behind the policy. */
export const QUICKSTART_PROMPTS = [
  "What's the weather like in Tokyo, and what is in this workspace?",
  "Please run `echo hello` in the workspace.",
] as const;

/** The only command the one-shot demo's policy lets through. */
const ALLOWED_COMMAND = "echo hello";

/**
 * The one-shot demo (`npm start`, `antigravity`, `antigravity "<prompt>"`): starts the harness,
 * runs the quick-start prompts (or the given one), prints usage and stops. Ctrl-C halts the
 * running turn; a second Ctrl-C exits. Returns the process exit code.
 */
export async function runOneShot(cli: CliOptions, out: CliOutput): Promise<number> {
  const renderer = new TurnRenderer(out, { color: cli.color });
  if (cli.hosted === undefined) {
    const binary = discoverHarnessBinary(definedProperties({ harnessPath: cli.harnessPath }));
    renderer.note(
      `harness: ${binary.source === "bundled" ? "bundled reference harness" : binary.source} (${binary.path})`,
      "dim",
    );
    renderer.note(`model:   ${describeModel()}`, "dim");
  } else {
    renderer.note(describeHosted(cli.hosted), "dim");
  }

  const confirm = (call: ToolCall): boolean => {
    const command = commandLineOf(call);
    const allowed = command.trim() === ALLOWED_COMMAND;
    renderer.note(
      `policy: run_command \`${command}\` → ${allowed ? "allowed" : "denied"} (this demo only allows \`${ALLOWED_COMMAND}\`)`,
      "dim",
    );
    return allowed;
  };
  const agent = buildDemoAgent({
    cli,
    confirmRunCommand: confirm,
    ...(cli.verbose ? { onStderr: (line) => renderer.note(`[harness] ${line}`, "dim") } : {}),
  });

  const turnControl = { current: undefined as AbortController | undefined };
  const onSigint = (): void => {
    if (turnControl.current !== undefined && !turnControl.current.signal.aborted) turnControl.current.abort();
    else process.exit(130);
  };
  process.on("SIGINT", onSigint);
  const startedAt = performance.now();
  const started = await agent.start({ timeoutMs: 60_000 });
  try {
    renderer.note(
      `ready in ${Math.round(performance.now() - startedAt)} ms · conversation ${started.conversationId}`,
      "dim",
    );
    const prompts = cli.prompt === undefined ? QUICKSTART_PROMPTS : [cli.prompt];
    for (const prompt of prompts) {
      renderer.note("");
      renderer.note(`› ${prompt}`);
      turnControl.current = new AbortController();
      const outcome = await runTurn(started.conversation(), prompt, renderer, turnControl.current.signal);
      turnControl.current = undefined;
      if (outcome === "halted") break;
    }
    return 0;
  } finally {
    process.off("SIGINT", onSigint);
    await started.stop();
  }
}
