import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  Agent,
  ErrorCode,
  SdkError,
  WebSocketTransport,
  defineTool,
  isSyntheticToolStep,
  subprocessTransportFactory,
  type AgentBuilder,
  type HookToolError,
  type StartedAgent,
} from "@antigravity-ts/node";
import { harnessEnv, harnessExecutable, killAllHarnesses, startListeningHarness } from "@antigravity-ts/test-kit";
import { ProcessWatch } from "./process-watch.js";

// Issue #4's faults, end to end through the public Agent of @antigravity-ts/node: each fault
// gives a typed SdkError with a message a user can act on, leaves no process behind, and the
// next start() works. The harness is the reference harness (scripted model, scripts/faults-script.json)
// spawned by the default subprocess transport, or listening for the WebSocketTransport; the
// binary-level faults use the fake harnesses of packages/node/src/subprocess/testing.

const SCRIPT = fileURLToPath(new URL("./scripts/faults-script.json", import.meta.url));
const FAKES = new URL("../../../packages/node/src/subprocess/testing/", import.meta.url);
const FAULT_INJECTION = fileURLToPath(
  new URL("../../../packages/harness/src/test-support/fault-injection.ts", import.meta.url),
);
const SCRIPTED = { ANTIGRAVITY_MODEL_PROVIDER: "scripted", ANTIGRAVITY_SCRIPT: SCRIPT };
/** Bound of every start() and turn: a hang fails the test with DeadlineExceeded, not a timeout. */
const BOUND_MS = 20_000;
const TEST_MS = 60_000;

/** What `promise` rejected with; fails when it resolves (stopping an agent it started). */
async function failure(promise: Promise<unknown>): Promise<SdkError> {
  const outcome = await promise.then(
    async (value) => {
      if (typeof value === "object" && value !== null && "stop" in value) await (value as StartedAgent).stop();
      return new Error("expected a failure, but it succeeded");
    },
    (error: unknown) => error,
  );
  expect(outcome).toBeInstanceOf(SdkError);
  return outcome as SdkError;
}

/** What `start()` of an agent on the harness binary at `harnessPath` failed with. */
function startFailure(harnessPath: string, timeoutMs = BOUND_MS): Promise<SdkError> {
  return failure(
    Agent.builder().transport(subprocessTransportFactory({ harnessPath })).allowAll().build().start({ timeoutMs }),
  );
}

/** Resolves with `promise`, or rejects after `BOUND_MS` saying what did not happen. */
function bounded<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>(
    (_, reject) =>
      (timer = setTimeout(() => reject(new Error(`${what} did not happen within ${BOUND_MS} ms`)), BOUND_MS)),
  );
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** A tool that hangs until its call is aborted; `onCall` gets each call's signal as it starts. */
function slowLookup(onCall: (signal: AbortSignal) => void) {
  return defineTool({
    name: "slow_lookup",
    description: "Looks a key up in a store that never answers",
    parameters: { type: "object", properties: { key: { type: "string" } }, required: ["key"] },
    call: (_args: { key: string }, context) =>
      new Promise((_, reject) => {
        context.signal.addEventListener("abort", () => reject(new Error("lookup aborted")), { once: true });
        onCall(context.signal);
      }),
  });
}

describe("faults end to end", () => {
  let harnessPath = "";
  let workspace = "";
  const running: StartedAgent[] = [];

  beforeAll(async () => {
    harnessPath = await harnessExecutable("source");
    workspace = await mkdtemp(path.join(tmpdir(), "antigravity-faults-ws-"));
  });

  afterEach(async () => {
    await Promise.all(running.splice(0).map((agent) => agent.stop()));
    await killAllHarnesses();
  });

  afterAll(async () => {
    await rm(path.dirname(harnessPath), { recursive: true, force: true });
    await rm(workspace, { recursive: true, force: true });
  });

  /** The Node Agent with its default subprocess transport, the reference harness and the fault script. */
  function builder(): AgentBuilder<false> {
    return Agent.builder()
      .transport(subprocessTransportFactory({ harnessPath, env: SCRIPTED }))
      .workspaces(workspace);
  }

  async function start(configure: (builder: AgentBuilder<false>) => AgentBuilder<true>): Promise<StartedAgent> {
    const agent = await configure(builder()).build().start({ timeoutMs: BOUND_MS });
    running.push(agent);
    return agent;
  }

  /** (b) A fresh agent starts and completes a turn, and (a) its harness is gone after stop(). */
  async function expectFreshStartWorks(): Promise<void> {
    const watch = new ProcessWatch();
    const agent = await start((b) => b.allowAll());
    watch.harnessPid();
    const response = await agent.chatToCompletion("hello", { timeoutMs: BOUND_MS });
    expect(response.text).toBe("Hello! The session works.");
    await agent.stop();
    expect(await watch.leftovers()).toEqual([]);
  }

  it(
    "harness binary missing: FailedPrecondition (not retryable) naming the path and the fix",
    async () => {
      const watch = new ProcessWatch();
      const missing = path.join(workspace, "no-such-dir", "localharness");
      const error = await startFailure(missing);
      expect(error.code).toBe(ErrorCode.FailedPrecondition);
      expect(error.message).toContain(
        `harness binary not found at ${missing}: the harnessPath option names this path; point it at the harness binary`,
      );
      expect(await watch.leftovers()).toEqual([]);
      await expectFreshStartWorks();
    },
    TEST_MS,
  );

  it(
    "harness exits before the handshake: HarnessCrashed with its exit code and stderr",
    async () => {
      const watch = new ProcessWatch();
      const fake = fileURLToPath(new URL("exit-before-handshake.mjs", FAKES));
      const error = await startFailure(fake);
      expect(error.code).toBe(ErrorCode.HarnessCrashed);
      expect(error.message).toContain("harness exited with code 3 before the handshake");
      expect(error.message).toContain("fatal: cannot open the model configuration (fake)");
      expect(await watch.leftovers()).toEqual([]);
      await expectFreshStartWorks();
    },
    TEST_MS,
  );

  it(
    "harness never answers the handshake: DeadlineExceeded within the start() bound, and the child is killed",
    async () => {
      const watch = new ProcessWatch();
      const fake = fileURLToPath(new URL("silent-harness.mjs", FAKES));
      const error = await startFailure(fake, 2_000);
      expect(error.code).toBe(ErrorCode.DeadlineExceeded);
      expect(error.message).toContain(
        "deadline exceeded: the call did not finish within 2000 ms during the harness handshake",
      );
      expect(error.message).toContain("; harness stderr:"); // what it printed by then
      expect(await watch.leftovers()).toEqual([]);
      await expectFreshStartWorks();
    },
    TEST_MS,
  );

  it(
    "garbage on stdout: ProtocolError asking whether the binary is a localharness, and the child is killed",
    async () => {
      const watch = new ProcessWatch();
      const fake = fileURLToPath(new URL("garbage-stdout.mjs", FAKES));
      const error = await startFailure(fake);
      expect(error.code).toBe(ErrorCode.ProtocolError);
      expect(error.message).toContain("harness answered the handshake with something that is not an OutputConfig");
      expect(error.message).toContain(`is ${fake} a localharness binary?`);
      expect(error.message).toContain("fake harness: printing a banner on stdout");
      // The fake would live until its stdin closes: only the transport's cleanup ends it.
      expect(await watch.leftovers()).toEqual([]);
      await expectFreshStartWorks();
    },
    TEST_MS,
  );

  it(
    "wrong api key: PermissionDenied saying which key to pass; the harness takes the right key afterwards",
    async () => {
      const harness = await startListeningHarness({
        env: harnessEnv(SCRIPT),
        workspace,
        apiKey: "faults-key-0123456789",
      });
      const watch = new ProcessWatch();
      const over = (apiKey: string): AgentBuilder<true> =>
        Agent.builder()
          .transport(new WebSocketTransport({ host: "127.0.0.1", port: harness.port, apiKey }))
          .workspaces(workspace)
          .allowAll();
      const error = await failure(over("wrong-key-0123456789").build().start({ timeoutMs: BOUND_MS }));
      expect(error.code).toBe(ErrorCode.PermissionDenied);
      expect(error.message).toContain(`the harness at ws://127.0.0.1:${harness.port}/ refused the api key (HTTP 401`);
      expect(error.message).toContain("pass the key it expects (apiKey / ANTIGRAVITY_API_KEY)");
      expect(error.message).not.toContain("faults-key-0123456789");
      expect(await watch.leftovers()).toEqual([]);
      const agent = await over(harness.apiKey).build().start({ timeoutMs: BOUND_MS });
      running.push(agent);
      expect((await agent.chatToCompletion("hello", { timeoutMs: BOUND_MS })).text).toBe("Hello! The session works.");
      await agent.stop();
      await harness.stop();
      await expectFreshStartWorks();
    },
    TEST_MS,
  );

  it(
    "socket dropped mid-turn: ConnectionClosed at once, the dead agent fails fast, nothing hangs",
    async () => {
      const watch = new ProcessWatch();
      const harness = await startListeningHarness({
        env: harnessEnv(SCRIPT),
        workspace,
        apiKey: "faults-key-0123456789",
      });
      const agent = await Agent.builder()
        .transport(new WebSocketTransport({ host: "127.0.0.1", port: harness.port, apiKey: harness.apiKey }))
        .workspaces(workspace)
        .allowAll()
        .build()
        .start({ timeoutMs: BOUND_MS });
      running.push(agent);
      const texts: string[] = [];
      const error = await failure(
        (async () => {
          for await (const chunk of agent.chat("tell a long story", { timeoutMs: BOUND_MS })) {
            if (chunk.type !== "text") continue;
            // The story streams one word per 100 ms: the harness dies with most of it unsent.
            if (texts.push(chunk.text) === 1) process.kill(harness.pid, "SIGKILL");
          }
        })(),
      );
      expect(error.code).toBe(ErrorCode.ConnectionClosed);
      expect(error.message).toContain(
        `the WebSocket to ws://127.0.0.1:${harness.port}/ closed unexpectedly (code 1006: no close frame; the harness stopped or the network dropped); start the agent again to reconnect`,
      );
      expect(texts.join("")).not.toContain("nothing was left behind.");
      const again = await failure(agent.chatToCompletion("hello", { timeoutMs: BOUND_MS }));
      expect(again.code).toBe(ErrorCode.ConnectionClosed);
      await bounded(agent.stop(), "stop() after the socket dropped");
      expect(await watch.leftovers()).toEqual([]);
      await expectFreshStartWorks();
    },
    TEST_MS,
  );

  it(
    "socket dropped mid-turn, the harness alive: ConnectionClosed with the harness's stderr; stop() still ends the harness",
    async () => {
      const watch = new ProcessWatch();
      // The preload makes the harness's session code throw when it streams the marker: the crash
      // guard closes that session's socket (1011) and the process lives on (docs/harness.md).
      const faulty = await harnessExecutable("source", [FAULT_INJECTION]);
      try {
        const agent = await Agent.builder()
          .transport(subprocessTransportFactory({ harnessPath: faulty, env: SCRIPTED }))
          .workspaces(workspace)
          .allowAll()
          .build()
          .start({ timeoutMs: BOUND_MS });
        running.push(agent);
        const pid = watch.harnessPid();
        const error = await failure(agent.chatToCompletion("break the session", { timeoutMs: BOUND_MS }));
        expect(error.code).toBe(ErrorCode.ConnectionClosed);
        expect(error.message).toContain(
          "the harness closed the WebSocket (code 1011: internal harness error) but is still running",
        );
        expect(error.message).toContain("injected fault: inject-uncaught-fault");
        expect(watch.sample().has(pid)).toBe(true);
        await bounded(agent.stop(), "stop() after the harness dropped the session");
        expect(await watch.leftovers()).toEqual([]);
      } finally {
        await rm(path.dirname(faulty), { recursive: true, force: true });
      }
      await expectFreshStartWorks();
    },
    TEST_MS,
  );

  it(
    "harness killed mid-turn: HarnessCrashed naming the signal, the running tool is aborted",
    async () => {
      const watch = new ProcessWatch();
      const signals: AbortSignal[] = [];
      let pid = -1;
      const agent = await start((b) =>
        b
          .tool(
            slowLookup((signal) => {
              signals.push(signal);
              process.kill(pid, "SIGKILL"); // while the harness waits for this tool's answer
            }),
          )
          .allowAll(),
      );
      pid = watch.harnessPid();
      const error = await failure(agent.chatToCompletion("look it up", { timeoutMs: BOUND_MS }));
      expect(error.code).toBe(ErrorCode.HarnessCrashed);
      expect(error.message).toContain("harness process was killed by SIGKILL unexpectedly");
      expect(error.details).toMatchObject({ exitSignal: "SIGKILL" });
      expect(signals).toHaveLength(1);
      expect(signals[0]?.aborted).toBe(true);
      expect((await failure(agent.chatToCompletion("hello", { timeoutMs: BOUND_MS }))).code).toBe(
        ErrorCode.HarnessCrashed,
      );
      await bounded(agent.stop(), "stop() after the harness died");
      expect(await watch.leftovers()).toEqual([]);
      await expectFreshStartWorks();
    },
    TEST_MS,
  );

  it(
    "a tool that throws: the turn completes, the ERROR step and the model carry the message",
    async () => {
      const watch = new ProcessWatch();
      const message = "the weather service answered HTTP 503; try again in a minute";
      const flaky = defineTool({
        name: "flaky_weather",
        description: "Weather for a city",
        parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
        call: () => {
          throw new Error(message);
        },
      });
      const toolErrors: HookToolError[] = [];
      const agent = await start((b) =>
        b
          .tool(flaky)
          .hook({ onToolError: (e) => void toolErrors.push(e) })
          .allowAll(),
      );
      watch.harnessPid();
      const response = await agent.chatToCompletion("check the weather", { timeoutMs: BOUND_MS });
      const synthetic = response.steps.filter(isSyntheticToolStep);
      expect(synthetic.map((s) => [s.status, s.error, s.toolCalls[0]?.name])).toEqual([
        ["ERROR", message, "flaky_weather"],
      ]);
      const harnessStep = response.steps.find(
        (s) => !isSyntheticToolStep(s) && s.toolCalls[0]?.name === "flaky_weather",
      );
      expect(harnessStep?.status).toBe("ERROR");
      expect(harnessStep?.error).toBe(message);
      // The harness's ON_TOOL_ERROR path: the hook saw the message, and so did the model.
      expect(toolErrors.map((e) => [e.name, e.message])).toEqual([["flaky_weather", message]]);
      expect(response.text).toBe(`The weather tool failed: ${message}`);
      expect((await agent.chatToCompletion("hello", { timeoutMs: BOUND_MS })).text).toBe("Hello! The session works.");
      await agent.stop();
      expect(await watch.leftovers()).toEqual([]);
      await expectFreshStartWorks();
    },
    TEST_MS,
  );

  it(
    "a tool that never returns until aborted: Canceled / DeadlineExceeded, the tool is aborted, the harness halts, the agent goes on; stop() aborts it too",
    async () => {
      const watch = new ProcessWatch();
      const signals: AbortSignal[] = [];
      let onCall: () => void = () => undefined;
      const agent = await start((b) =>
        b
          .tool(
            slowLookup((signal) => {
              signals.push(signal);
              onCall();
            }),
          )
          .allowAll(),
      );
      watch.harnessPid();

      const controller = new AbortController();
      onCall = () => controller.abort();
      const canceled = await failure(
        agent.chatToCompletion("look it up", { signal: controller.signal, timeoutMs: BOUND_MS }),
      );
      expect(canceled.code).toBe(ErrorCode.Canceled);
      expect(signals).toHaveLength(1);
      expect(signals[0]?.aborted).toBe(true);

      onCall = () => undefined;
      // Long enough for the call to reach the tool on a loaded machine; the tool then hangs.
      const expired = await failure(agent.chatToCompletion("look it up", { timeoutMs: 3_000 }));
      expect(expired.code).toBe(ErrorCode.DeadlineExceeded);
      expect(expired.message).toContain("deadline exceeded");
      expect(signals).toHaveLength(2);
      expect(signals[1]?.aborted).toBe(true);

      // The same agent: the next turn waits for the halted one and runs normally.
      expect((await agent.chatToCompletion("hello", { timeoutMs: BOUND_MS })).text).toBe("Hello! The session works.");
      const history = await agent.conversation().history();
      const halted = history.filter((s) => !isSyntheticToolStep(s) && s.toolCalls[0]?.name === "slow_lookup");
      expect(halted.map((s) => [s.status, s.error])).toEqual([
        ["ERROR", "cancelled by haltRequest"],
        ["ERROR", "cancelled by haltRequest"],
      ]);

      // stop() while the tool hangs: the turn ends with ConnectionClosed and the tool is aborted too.
      onCall = () => void agent.stop();
      const stopped = await failure(agent.chatToCompletion("look it up", { timeoutMs: BOUND_MS }));
      expect(stopped.code).toBe(ErrorCode.ConnectionClosed);
      expect(stopped.message).toBe("the connection was closed by disconnect()");
      expect(signals).toHaveLength(3);
      expect(signals[2]?.aborted).toBe(true);
      await bounded(agent.stop(), "stop() with a tool still running");
      expect(await watch.leftovers()).toEqual([]);
      await expectFreshStartWorks();
    },
    TEST_MS,
  );

  it(
    "a hook that throws: the harness hears 'Hook failed: …'; PRE_TOOL denies the call, PRE_TURN cancels the turn, throwing observers are ignored, the session survives",
    async () => {
      const watch = new ProcessWatch();
      const added: unknown[] = [];
      const add = defineTool({
        name: "add",
        description: "Adds two numbers",
        parameters: {
          type: "object",
          properties: { a: { type: "number" }, b: { type: "number" } },
          required: ["a", "b"],
        },
        call: ({ a, b }: { a: number; b: number }) => (added.push({ a, b }), { sum: a + b }),
      });
      const thrown: string[] = [];
      const crash = (hook: string, message = `${hook} crashed`): never => {
        thrown.push(hook);
        throw new Error(message);
      };
      const agent = await start((b) =>
        b
          .tool(add)
          .hook({
            // Observers that throw: the harness logs the failure and goes on.
            onSessionStart: () => crash("onSessionStart"),
            postTurn: () => crash("postTurn"),
            onSessionEnd: () => crash("onSessionEnd"),
            // Deciders that throw: the harness fails closed.
            preTurn: (prompt) =>
              prompt.includes("forbidden") ? crash("preTurn", "the audit service is unreachable") : undefined,
            preToolCall: (call) =>
              call.name === "add" ? crash("preToolCall", "the approval service is unreachable") : undefined,
          })
          .allowAll(),
      );
      watch.harnessPid();

      const response = await agent.chatToCompletion("add the numbers", { timeoutMs: BOUND_MS });
      expect(added).toEqual([]);
      const denied = response.steps.find((s) => s.toolCalls[0]?.name === "add");
      expect(denied?.status).toBe("ERROR");
      expect(denied?.error).toBe("denied by the PRE_TOOL hook: Hook failed: the approval service is unreachable");
      expect(response.steps.filter(isSyntheticToolStep)).toEqual([]);
      expect(response.text).toBe(
        'The add tool said: {"error":"denied by the PRE_TOOL hook: Hook failed: the approval service is unreachable"}',
      );

      const cancelled = await failure(agent.chatToCompletion("a forbidden request", { timeoutMs: BOUND_MS }));
      expect(cancelled.code).toBe(ErrorCode.ExecutionError);
      expect(cancelled.message).toBe("Hook failed: the audit service is unreachable");

      expect((await agent.chatToCompletion("hello", { timeoutMs: BOUND_MS })).text).toBe("Hello! The session works.");
      await bounded(agent.stop(), "stop() with a throwing onSessionEnd hook");
      expect(thrown).toEqual(["onSessionStart", "preToolCall", "postTurn", "preTurn", "postTurn", "onSessionEnd"]);
      expect(await watch.leftovers()).toEqual([]);
      await expectFreshStartWorks();
    },
    TEST_MS,
  );
});
