import type { Stream } from "@agentclientprotocol/sdk";
import type { ConnectionCapabilities, ConnectionStrategy } from "@antigravity-ts/sdk";
import { lazyConnection } from "./lazy-connection.js";

/**
 * What the acp wire can do: `ACP_CAPABILITIES` of `@antigravity-ts/sdk/acp`, copied so that the
 * command does not load the ACP library unless `--acp-agent` is used (acp-agent-command.test.ts
 * checks the copy against the original).
 */
export const ACP_CAPABILITIES_COPY: ConnectionCapabilities = {
  wire: "acp",
  clientTools: false,
  hooks: new Set(["preToolCall"]),
  dynamicPolicies: true,
  confirmations: false,
  questions: false,
  triggers: false,
  halt: true,
  resume: true,
  reconnect: false,
  perCallUsage: false,
  compaction: false,
  media: ["image/*", "audio/*"],
  skills: false,
  rules: false,
  toolOutputTruncation: false,
  thinkingLevel: false,
  builtinTools: false,
  autoPolicy: false,
};

/** Splits `--acp-agent`'s command line into words: whitespace separates, '…' and "…" quote (no shell, no expansion). */
export function splitCommandLine(line: string): string[] {
  const words: string[] = [];
  let word = "";
  let quote: string | undefined;
  let started = false;
  for (const char of line) {
    if (quote !== undefined) {
      if (char === quote) quote = undefined;
      else word += char;
    } else if (char === '"' || char === "'") {
      quote = char;
      started = true;
    } else if (/\s/.test(char)) {
      if (started || word !== "") words.push(word);
      word = "";
      started = false;
    } else {
      word += char;
    }
  }
  if (quote !== undefined) throw new Error(`unterminated ${quote} in the command line ${JSON.stringify(line)}`);
  if (started || word !== "") words.push(word);
  return words;
}

/**
 * `--acp-agent "<command>"`: the ACP agent spawned by `@antigravity-ts/node/acp`'s `acpAgent`,
 * loaded when the first session opens.
 */
export function acpAgentCommand(
  commandLine: string,
  options: {
    cwd: string;
    onStderr?: ((line: string) => void) | undefined;
    /** Wraps each session's message stream (`antigravity record`). */
    wrapStream?: ((stream: Stream) => Stream) | undefined;
  },
): ConnectionStrategy {
  const [command, ...args] = splitCommandLine(commandLine);
  if (command === undefined) throw new Error("--acp-agent needs a command");
  return lazyConnection(ACP_CAPABILITIES_COPY, async () => {
    const { acpAgent } = await import("@antigravity-ts/node/acp");
    return acpAgent({
      command,
      args,
      cwd: options.cwd,
      ...(options.onStderr === undefined ? {} : { onStderr: options.onStderr }),
      ...(options.wrapStream === undefined ? {} : { wrapStream: options.wrapStream }),
    });
  });
}
