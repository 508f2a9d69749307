import type { CallOptions } from "../call-options.js";
import type { ChatEvent } from "../conversation/chat-events.js";
import type { ChatResponse } from "../conversation/chat-response.js";
import type { ChatStream } from "../conversation/chat-stream.js";
import { definedProperties } from "../defined-properties.js";
import { ErrorCode, SdkError } from "../errors.js";
import type { Prompt } from "../prompt.js";
import { linkSignal, type LinkedSignal } from "../util/abort.js";
import { Agent, type StartedAgent } from "./agent.js";
import type { AgentOptionsWithPolicy } from "./agent-options.js";

/**
 * Options of {@link run}: the agent's options with the policy required (as `build()` requires
 * one), and `signal`/`timeoutMs` bounding the whole run — start, turn and stop.
 */
export interface RunOptions extends AgentOptionsWithPolicy, CallOptions {}

/**
 * One turn of a one-shot agent, as {@link run} returns it: `for await` yields the turn's
 * {@link ChatEvent}s, `final()` the {@link ChatResponse}. Both settle only once the agent stopped
 * (the session closed, a harness it started exited). Leaving the `for await` early, `abort()` or
 * the run's `signal` cancel the turn and stop the agent.
 */
export interface RunResult<Output = unknown> extends AsyncIterable<ChatEvent>, AsyncDisposable {
  /** The turn's response once the run is over and the agent stopped; rejects with the run's `SdkError` (start or turn). */
  final(): Promise<ChatResponse<Output>>;
  /** Cancels the run (the turn, or the start still under way); resolves once the agent stopped. Never rejects. */
  abort(reason?: unknown): Promise<void>;
  /** Resolves once the agent stopped, whatever the outcome. Never rejects. */
  done(): Promise<void>;
}

/**
 * The one-call entry: starts an agent, sends `prompt`, streams that turn and stops the agent —
 * no handle left open, no harness left running. Like `Agent.builder()...build().start()` then
 * `chat(prompt)`: the same options, defaults and checks (from `@antigravity-ts/node`, Node's
 * defaults: a harness subprocess in the working directory; in the core, give `transport` or
 * `connection`). The policy is chosen explicitly: `policies` is required.
 *
 * @example
 * const result = run("What is 2 + 3?", { policies: [readOnly()] });
 * for await (const event of result) if (event.type === "text") console.log(event.text);
 * const { text, usageMetadata } = await result.final();
 */
export function run<Output = unknown>(prompt: Prompt, options: RunOptions): RunResult<Output> {
  return new OneShotRun<Output>(prompt, options);
}

class OneShotRun<Output> implements RunResult<Output> {
  readonly #controller = new AbortController();
  readonly #stream: Promise<ChatStream<Output>>;
  readonly #done: Promise<void>;

  constructor(prompt: Prompt, options: RunOptions) {
    const { signal, timeoutMs, ...agentOptions } = options;
    let cancel: LinkedSignal | undefined;
    let bound: LinkedSignal | undefined;
    let agent: Promise<StartedAgent<Output>>;
    try {
      cancel = linkSignal(definedProperties({ signal }), this.#controller.signal);
      // The whole run's bound; start() gets it as its own timeoutMs, so a start that runs out of
      // time fails with its detailed error (URL, stage), not a bare deadline.
      bound = linkSignal({ signal: cancel.signal, ...definedProperties({ timeoutMs }) });
      // new Agent checks the policy (InvalidArgument without one, as build()) and applies the runtime's defaults.
      agent = new Agent<Output>(agentOptions).start({ signal: cancel.signal, ...definedProperties({ timeoutMs }) });
    } catch (error) {
      agent = Promise.reject(SdkError.from(error));
    }
    const turnSignal = bound?.signal ?? this.#controller.signal;
    const stream = agent.then((started) => started.chat(prompt, { signal: turnSignal }));
    stream.catch(() => undefined);
    this.#stream = stream;
    this.#done = (async () => {
      try {
        await (await stream).outcome();
      } catch {
        // reported by final() and the event view
      } finally {
        bound?.dispose();
        cancel?.dispose();
        await agent.then(
          (started) => started.stop().catch(() => undefined),
          () => undefined,
        );
      }
    })();
  }

  final(): Promise<ChatResponse<Output>> {
    return this.#stream.then(async (stream) => {
      try {
        return await stream.final();
      } finally {
        await this.#done;
      }
    }, this.#afterStop);
  }

  async *[Symbol.asyncIterator](): AsyncIterator<ChatEvent> {
    let finished = false;
    try {
      const stream = await this.#stream.catch(this.#afterStop);
      yield* stream.events();
      finished = true;
    } finally {
      if (!finished) await this.abort(new SdkError(ErrorCode.Canceled, "the run's reader left before its end"));
      await this.#done;
    }
  }

  abort(reason?: unknown): Promise<void> {
    const error =
      reason === undefined
        ? new SdkError(ErrorCode.Canceled, "the run was aborted")
        : SdkError.from(reason, ErrorCode.Canceled);
    if (!this.#controller.signal.aborted) this.#controller.abort(error);
    return this.#done;
  }

  done(): Promise<void> {
    return this.#done;
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.abort();
  }

  /** Rethrows a failed start once the agent's cleanup is over. */
  readonly #afterStop = async (error: unknown): Promise<never> => {
    await this.#done;
    throw SdkError.from(error);
  };
}
