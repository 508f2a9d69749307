import { ErrorCode, SdkError, type ConnectionCapabilities, type ConnectionStrategy } from "@antigravity-ts/sdk";
import { lazyConnection } from "./lazy-connection.js";

/**
 * What the interactions wire can do: `INTERACTIONS_CAPABILITIES` of `@antigravity-ts/sdk/hosted`,
 * copied so that the command loads the hosted client only with `--hosted`
 * (hosted-agent-command.test.ts checks the copy against the original).
 */
export const INTERACTIONS_CAPABILITIES_COPY: ConnectionCapabilities = {
  wire: "interactions",
  clientTools: true,
  hooks: new Set(),
  dynamicPolicies: true,
  confirmations: true,
  questions: false,
  triggers: false,
  halt: true,
  resume: true,
  reconnect: true,
  perCallUsage: false,
  compaction: false,
  media: [],
  skills: false,
  rules: false,
  toolOutputTruncation: false,
  thinkingLevel: false,
  builtinTools: false,
  autoPolicy: false,
};

/** `DEFAULT_HOSTED_AGENT` of `@antigravity-ts/sdk/hosted`, copied for the same reason (and checked the same way). */
export const DEFAULT_HOSTED_AGENT_COPY = "antigravity-preview-09-2026";

/** What the command prints about the hosted agent it talks to. */
export function describeHosted(hosted: HostedCommand): string {
  return `hosted agent ${hosted.agent ?? DEFAULT_HOSTED_AGENT_COPY} at ${hosted.baseUrl ?? "https://generativelanguage.googleapis.com/"}`;
}

/** `--hosted`'s settings: the agent `create` names and where the API is. */
export interface HostedCommand {
  /** `--agent`: `CreateAgentInteraction.agent` (default hostedAgent's, `antigravity-preview-09-2026`). */
  agent?: string;
  /** `--base-url`: the emulator (`antigravity-harness --interactions-api`) or a route that adds the key. */
  baseUrl?: string;
}

/**
 * The API key of `--hosted`: `GEMINI_API_KEY`, never an argument (argv is visible to every user of
 * the machine). Required against Google; with `--base-url` it is sent when set, since a route in
 * front of the API (`createInteractionsRoute`) adds its own key.
 */
export function hostedApiKey(hosted: HostedCommand, env: NodeJS.ProcessEnv): string | undefined {
  const key = env.GEMINI_API_KEY;
  if (key !== undefined && key !== "") return key;
  if (hosted.baseUrl !== undefined) return undefined;
  throw new SdkError(
    ErrorCode.FailedPrecondition,
    "--hosted needs a Gemini API key: set GEMINI_API_KEY (it is never read from the command line), or give --base-url of a server that adds the key (docs/hosted.md)",
  );
}

/**
 * `--hosted`: the hosted Antigravity agent over the Gemini Interactions API, `hostedAgent` of
 * `@antigravity-ts/sdk/hosted` (docs/hosted.md), loaded when the first session opens.
 */
export function hostedAgentCommand(
  hosted: HostedCommand,
  options: {
    env: NodeJS.ProcessEnv;
    /** The `fetch` every request goes through (`antigravity record`'s recorder); default `globalThis.fetch`. */
    fetch?: typeof fetch | undefined;
  },
): ConnectionStrategy {
  const apiKey = hostedApiKey(hosted, options.env);
  return lazyConnection(INTERACTIONS_CAPABILITIES_COPY, async () => {
    const { hostedAgent } = await import("@antigravity-ts/sdk/hosted");
    return hostedAgent({
      apiKey,
      agent: hosted.agent,
      baseUrl: hosted.baseUrl,
      fetch: options.fetch,
    });
  });
}
