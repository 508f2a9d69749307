import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import * as z from "zod";
import {
  Agent,
  ErrorCode,
  SdkError,
  WebSocketTransport,
  defineTool,
  isSyntheticToolStep,
  type StartedAgent,
} from "@antigravity-ts/sdk";
import { harnessEnv, killAllHarnesses, startListeningHarness, type ListeningHarness } from "@antigravity-ts/test-kit";

// Issue 12 item 1 end to end: a zod-schema tool and a zod response schema against the reference
// harness (scripted model) over a real socket. The scripted model echoes the tool's answer
// (`{{result.error}}`), so the text proves what the model saw.

const SCRIPT = fileURLToPath(new URL("./scripts/schema-tools-script.json", import.meta.url));
/** Bound of every wait: a hang fails the test saying what did not happen. */
const BOUND_MS = 15_000;

function bounded<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>(
    (_, reject) =>
      (timer = setTimeout(() => reject(new Error(`${what} did not happen within ${BOUND_MS} ms`)), BOUND_MS)),
  );
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

const report = z
  .object({
    city: z.string().regex(/^[A-Z]/, "must start with a capital letter"),
    celsius: z.number(),
  })
  .transform(({ city, celsius }) => ({ city, fahrenheit: (celsius * 9) / 5 + 32 }));

describe("schema-first tools and typed structured output (reference harness over WebSocket)", () => {
  let workspace = "";
  let harness: ListeningHarness | undefined;
  const running: StartedAgent<unknown>[] = [];

  beforeAll(async () => {
    workspace = await mkdtemp(path.join(tmpdir(), "antigravity-schema-"));
    harness = await startListeningHarness({
      env: harnessEnv(SCRIPT),
      workspace,
      apiKey: "schema-tools-key-0123456789",
    });
  });

  afterEach(async () => {
    await Promise.all(running.splice(0).map((agent) => agent.stop()));
  });

  afterAll(async () => {
    await harness?.stop();
    await killAllHarnesses();
    if (workspace !== "") await rm(workspace, { recursive: true, force: true });
  });

  function builder() {
    const transport = new WebSocketTransport({
      host: "127.0.0.1",
      port: harness?.port ?? 0,
      apiKey: harness?.apiKey ?? "",
    });
    return Agent.builder().transport(transport).workspaces(workspace).allowAll();
  }

  async function started<Output>(agent: Agent<Output>): Promise<StartedAgent<Output>> {
    const session = await agent.start({ timeoutMs: BOUND_MS });
    running.push(session);
    return session;
  }

  it("an invalid call never runs the tool; the model sees each issue and retries with valid arguments", async () => {
    const calls: unknown[] = [];
    const weather = defineTool({
      name: "get_weather",
      description: "The weather in a city",
      parameters: z.object({ city: z.string().trim(), days: z.number().int().min(1).default(1) }),
      call: (args) => {
        calls.push(args);
        return { city: args.city, days: args.days, sky: "clear" };
      },
    });
    const agent = await started(builder().tool(weather).build());
    const response = await bounded(agent.chatToCompletion("the weather with a wrong argument"), "the tool turn");

    expect(calls).toEqual([{ city: "Paris", days: 1 }]); // only the valid call ran, with zod's output
    const issues =
      "Invalid arguments for tool get_weather: city: Invalid input: expected string, received undefined; days: Too small: expected number to be >=1. The tool did not run; call it again with arguments that match its schema.";
    expect(response.text).toBe(`The tool answered: ${issues} Then: clear in Paris for 1 day(s).`);
    const failed = response.steps.filter((step) => isSyntheticToolStep(step) && step.error !== "");
    expect(failed.map((step) => step.error)).toEqual([issues]);
  });

  it("structured output is validated and transformed by the zod response schema", async () => {
    const agent = await started(builder().responseSchema(report).build());
    const response = await bounded(agent.chatToCompletion("a structured report"), "the structured turn");
    expect(response.structuredOutput).toEqual({ city: "Paris", fahrenheit: 69.8 });
    expect(response.structuredOutput?.fahrenheit).toBeCloseTo(69.8);
  });

  it("output the schema refuses rejects with ExecutionError listing the issues; the raw response is kept", async () => {
    const agent = await started(builder().responseSchema(report).build());
    const error = await bounded(agent.chatToCompletion("a lowercase report"), "the refused turn").then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(SdkError);
    const sdkError = error as SdkError;
    expect(sdkError.code).toBe(ErrorCode.ExecutionError);
    expect(sdkError.message).toBe(
      "the structured output does not match the response schema: city: must start with a capital letter (the unvalidated response is in details.response)",
    );
    expect(sdkError.details["issues"]).toEqual(["city: must start with a capital letter"]);
    expect((sdkError.details["response"] as { structuredOutput: unknown }).structuredOutput).toEqual({
      city: "paris",
      celsius: 21,
    });
    // The session goes on: the next turn works.
    expect((await bounded(agent.chatToCompletion("a structured report"), "the next turn")).structuredOutput).toEqual({
      city: "Paris",
      fahrenheit: 69.8,
    });
  });
});
