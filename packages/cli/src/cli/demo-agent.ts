import { resolve } from "node:path";
import {
  allow,
  allowAll,
  askUser,
  confirmRunCommand,
  defineTool,
  type AskUserHandler,
  type ConversationStore,
  type ToolCall,
  type TransportFactory,
} from "@antigravity-ts/sdk";
import { Agent, subprocessTransportFactory } from "@antigravity-ts/node";
import type { CliOptions } from "./cli-args.js";
import { acpAgentCommand } from "./acp-agent-command.js";
import { hostedAgentCommand } from "./hosted-agent-command.js";
import { definedProperties } from "@antigravity-ts/sdk/internal";

/** A client tool of the quick start: runs in this process when the model calls it (protocol §7). */
export const getWeather = defineTool({
  name: "get_weather",
  description: "Current weather for a city: condition and temperature in °C.",
  parameters: {
    type: "object",
    properties: { city: { type: "string", description: "City name", examples: ["Paris"] } },
    required: ["city"],
  },
  call: ({ city }: { city: string }) => {
    // Deterministic and offline: a real tool would call a weather API here.
    const conditions = ["sunny", "cloudy", "light rain", "windy"];
    const seed = [...city].reduce((sum, char) => sum + char.charCodeAt(0), 0);
    return { city, condition: conditions[seed % conditions.length], temperatureC: 12 + (seed % 15) };
  },
});

/** Options of {@link buildDemoAgent}. */
export interface DemoAgentOptions {
  cli: CliOptions;
  /** Decides `run_command` calls (the policy's ASK_USER handler). */
  confirmRunCommand: AskUserHandler;
  /** Receives harness stderr lines when `--verbose`. */
  onStderr?: ((line: string) => void) | undefined;
  /** Where the harness keeps its sessions (default: a temporary directory per session). */
  saveDir?: string;
  /** Continue this conversation: its id (created or resumed by the harness) and a store holding its snapshot. */
  continueConversation?: { conversationId: string; store: ConversationStore } | undefined;
}

/**
 * The agent of the quick start and the REPL: the `get_weather` client tool, the built-in tools,
 * and a policy that allows everything but asks before `run_command`.
 */
export function buildDemoAgent(options: DemoAgentOptions): Agent {
  const { cli } = options;
  if (cli.acpAgent !== undefined) {
    // ACP has no client tools: no get_weather. run_command is asked about under its ACP kind too ("execute").
    const cwd = resolve(cli.workspace ?? process.cwd());
    return Agent.builder()
      .policies(
        askUser("run_command", options.confirmRunCommand),
        askUser("execute", options.confirmRunCommand),
        allowAll(),
      )
      .connection(acpAgentCommand(cli.acpAgent, { cwd, onStderr: options.onStderr, wrapStream: cli.wrapStream }))
      .build();
  }
  // The hosted harness runs its own tools (run_command too) in its sandbox without asking: the
  // wire has no step a client approves, so only the client tool's calls are the policies' to decide.
  const policies =
    cli.hosted === undefined ? [confirmRunCommand(options.confirmRunCommand), allow("get_weather")] : [allowAll()];
  let builder = Agent.builder()
    .tool(getWeather)
    .policies(...policies);
  builder =
    cli.hosted === undefined
      ? builder.workspaces(resolve(cli.workspace ?? process.cwd())).transport(
          recorded(
            cli,
            subprocessTransportFactory(
              definedProperties({
                onStderr: options.onStderr,
                harnessPath: cli.harnessPath,
                saveDir: options.saveDir,
              }),
            ),
          ),
        )
      : builder.connection(hostedAgentCommand(cli.hosted, { env: process.env, fetch: cli.hostedFetch }));
  const continued = options.continueConversation;
  if (continued !== undefined)
    builder = builder
      .conversationId(continued.conversationId)
      .sessionContinuationMode("createOrResume")
      .conversationStore(continued.store);
  return builder.build();
}

/** `factory`, recorded when the command runs under `antigravity record`. */
function recorded(cli: CliOptions, factory: TransportFactory): TransportFactory {
  return cli.wrapTransport === undefined ? factory : cli.wrapTransport(factory);
}

/** The command line a `run_command` call would run, for display and policy checks. */
export function commandLineOf(call: ToolCall): string {
  const args = (call.args ?? {}) as Record<string, unknown>;
  const line = args.CommandLine ?? args.command_line ?? args.commandLine ?? args.command;
  return typeof line === "string" ? line : JSON.stringify(call.args);
}

/**
 * Which model the harness will use, as far as the environment tells (docs/model-providers.md),
 * naming the script file of the scripted model when `ANTIGRAVITY_SCRIPT` sets one.
 */
export function describeModel(env: NodeJS.ProcessEnv = process.env): string {
  const forced = env.ANTIGRAVITY_MODEL_PROVIDER;
  const script = env.ANTIGRAVITY_SCRIPT;
  const scripted = (why: string): string =>
    script !== undefined && script !== ""
      ? `offline scripted model playing ${script} (ANTIGRAVITY_SCRIPT; ${why})`
      : `offline scripted demo model (${why})`;
  if (forced === "scripted") return scripted("ANTIGRAVITY_MODEL_PROVIDER=scripted");
  if (forced !== undefined && forced !== "") return `${forced} (ANTIGRAVITY_MODEL_PROVIDER)`;
  if (env.GEMINI_API_KEY) return "Gemini (GEMINI_API_KEY is set)";
  return scripted("set GEMINI_API_KEY for Gemini");
}
