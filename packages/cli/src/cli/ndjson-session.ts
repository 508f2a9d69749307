import {
  ErrorCode,
  SdkError,
  sessionEventToJson,
  type SessionEvent,
  type StreamingSession,
  type ToolCall,
  type ToolCallLocation,
} from "@antigravity-ts/sdk";
import type { CliOptions } from "./cli-args.js";
import { buildDemoAgent } from "./demo-agent.js";
import { boundedLines } from "./bounded-lines.js";
import { MAX_NDJSON_LINE, NDJSON_VERSION, lineTooLong, parseNdjsonLine } from "./ndjson-protocol.js";
import { definedProperties } from "@antigravity-ts/sdk/internal";

/** A confirmation the harness waits for, until an `approve`/`deny` line answers it. */
interface PendingConfirmation {
  readonly requestId: string;
  readonly answer: (approved: boolean) => void;
}

/**
 * `antigravity --input-format ndjson --output-format ndjson`: one {@link StreamingSession} over
 * the demo agent, driven by JSON lines on `input` and reported as JSON lines on `output`
 * (docs/ndjson.md). A bad line is an `error` line and the session goes on. End of input closes
 * the session's input: the accepted messages' turns finish, pending confirmations are denied,
 * the harness stops. Returns the exit code.
 */
export async function runNdjson(
  cli: CliOptions,
  input: NodeJS.ReadableStream,
  output: NodeJS.WritableStream,
): Promise<number> {
  const write = (line: Record<string, unknown>): void => void output.write(`${JSON.stringify(line)}\n`);
  const pending: PendingConfirmation[] = [];
  let nextRequest = 0;
  let closed = false;
  const shown = new ShownCalls();
  const confirm = async (call: ToolCall, where?: ToolCallLocation): Promise<boolean> => {
    if (closed) return false; // fail closed: nobody is left to answer
    // One id and one spelling across the lines: the request waits for the call's toolCall line and
    // repeats its toolCall (a built-in call's id is its step's id, §6.4, as events give it).
    const line = await shown.waitFor([call.id, where?.stepId]);
    const toolCall = line ?? { id: where?.stepId ?? call.id, name: call.name, args: call.args };
    if (closed) return false;
    return new Promise((resolve) => {
      const requestId = `c${nextRequest++}`;
      pending.push({ requestId, answer: resolve });
      write({
        type: "confirmationRequest",
        requestId,
        toolCall: { id: toolCall.id, name: toolCall.name, args: toolCall.args },
      });
    });
  };
  const denyAll = (): void => {
    for (const confirmation of pending.splice(0)) confirmation.answer(false);
  };
  const agent = buildDemoAgent({
    cli,
    confirmRunCommand: confirm,
    ...(cli.verbose ? { onStderr: (line) => process.stderr.write(`[harness] ${line}\n`) } : {}),
  });
  const started = await agent.start({ timeoutMs: 60_000 });
  try {
    const session = started.streamingSession({ midTurn: cli.midTurn });
    const writing = (async () => {
      for await (const event of session) {
        write(outputLine(event));
        if (event.type === "toolCall") shown.add(event.toolCall);
      }
    })();
    let lineNumber = 0;
    for await (const read of boundedLines(input as AsyncIterable<Buffer | string>, MAX_NDJSON_LINE)) {
      lineNumber++;
      if ("line" in read && read.line.trim() === "") continue;
      try {
        if ("tooLong" in read) throw lineTooLong(read.tooLong);
        const command = parseNdjsonLine(read.line);
        switch (command.type) {
          case "user_message": {
            const id = command.id;
            const at = lineNumber;
            session.sendUserMessage(command.content).then(
              (receipt) => write({ type: "receipt", ...definedProperties({ id }), ...receipt }),
              (error: unknown) =>
                write({ type: "error", line: at, ...definedProperties({ id }), error: errorJson(error) }),
            );
            break;
          }
          case "interrupt":
            denyAll(); // a confirmation of the halted turn has nobody to wait for
            void session.interrupt();
            break;
          default: {
            const index =
              command.requestId === undefined ? 0 : pending.findIndex((p) => p.requestId === command.requestId);
            const confirmation = pending[index];
            if (index < 0 || confirmation === undefined) {
              throw new SdkError(
                ErrorCode.FailedPrecondition,
                command.requestId === undefined
                  ? `${command.type}: no confirmation is pending`
                  : `${command.type}: no pending confirmation has requestId ${JSON.stringify(command.requestId)}`,
              );
            }
            pending.splice(index, 1);
            confirmation.answer(command.type === "approve");
          }
        }
      } catch (error) {
        write({ type: "error", line: lineNumber, error: errorJson(error) });
      }
    }
    closed = true;
    denyAll();
    session.closeInput();
    await session.wait();
    await writing;
    return 0;
  } finally {
    closed = true;
    denyAll();
    await started.stop();
  }
}

/** How long a confirmation waits for its call's `toolCall` line before it is written without one. */
const SHOWN_WAIT_MS = 2_000;

/** The calls the output has shown (`toolCall` lines) by id, and the confirmations waiting for one. */
class ShownCalls {
  readonly #calls = new Map<string, ToolCall>();
  readonly #waiters = new Set<{ ids: readonly string[]; resolve: (call: ToolCall) => void }>();

  add(call: ToolCall): void {
    if (call.id === "") return;
    this.#calls.set(call.id, call);
    for (const waiter of this.#waiters) {
      if (waiter.ids.includes(call.id)) {
        this.#waiters.delete(waiter);
        waiter.resolve(call);
      }
    }
  }

  /** The shown call with one of `ids`, once its line is out; undefined if none comes within {@link SHOWN_WAIT_MS}. */
  waitFor(candidates: readonly (string | undefined)[]): Promise<ToolCall | undefined> {
    const ids = candidates.filter((id): id is string => id !== undefined && id !== "");
    for (const id of ids) {
      const call = this.#calls.get(id);
      if (call !== undefined) return Promise.resolve(call);
    }
    if (ids.length === 0) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      const waiter = { ids, resolve: (call: ToolCall | undefined) => (clearTimeout(timer), resolve(call)) };
      const timer = setTimeout(() => {
        this.#waiters.delete(waiter);
        resolve(undefined);
      }, SHOWN_WAIT_MS);
      this.#waiters.add(waiter);
    });
  }
}

/** A session event as an output line; `init` also says the line format's version. */
function outputLine(event: SessionEvent): Record<string, unknown> {
  const json = sessionEventToJson(event);
  return event.type === "init" ? { ...json, version: NDJSON_VERSION } : json;
}

function errorJson(error: unknown): { code: string; message: string } {
  const failure = SdkError.from(error);
  return { code: failure.code, message: failure.message };
}
