import { beforeAll, describe, expect, it } from "vitest";
import { ensureScriptedReferenceHarness } from "@antigravity-ts/test-kit";
import {
  Agent,
  ErrorCode,
  SdkError,
  allowAll,
  confirmRunCommand,
  defineTool,
  readOnly,
  run,
  type ChatEvent,
  type RunOptions,
} from "./index.js";
import { liveChildCount } from "./subprocess/child-registry.js";

// run() from @antigravity-ts/node: Node's defaults (the bundled reference harness as a subprocess,
// the working directory as workspace), one turn, and nothing left running afterwards.

beforeAll(async () => {
  await ensureScriptedReferenceHarness();
}, 300_000);

/** The kinds of this process's live handles (sockets, child processes, pipes); timers and pending fs requests left out. */
function handles(): string[] {
  return process
    .getActiveResourcesInfo()
    .filter((kind) => kind !== "Timeout" && kind !== "Immediate" && kind !== "FSReqCallback")
    .sort();
}

/** Handles live now beyond those of `before` (a handle of before that ended meanwhile is no leak). */
function leakedSince(before: readonly string[]): string[] {
  const left = [...before];
  return handles().filter((kind) => {
    const i = left.indexOf(kind);
    if (i < 0) return true;
    left.splice(i, 1);
    return false;
  });
}

const add = defineTool({
  name: "add",
  description: "Adds two numbers.",
  parameters: {
    type: "object",
    properties: { a: { type: "number" }, b: { type: "number" } },
    required: ["a", "b"],
  } as const,
  call: ({ a, b }) => a + b,
});

async function failure(promise: Promise<unknown>): Promise<SdkError> {
  const error = await promise.then(
    () => new Error("expected a failure"),
    (e: unknown) => e,
  );
  if (!(error instanceof SdkError)) throw error;
  return error;
}

describe("run() from @antigravity-ts/node", () => {
  it("starts the bundled harness, streams the turn's events, gives final() and stops: no child, no socket left", async () => {
    const before = handles();
    const result = run("Hello there", { policies: [allowAll()], tools: [add], timeoutMs: 60_000 });
    const events: ChatEvent[] = [];
    for await (const event of result) {
      events.push(event);
      if (event.type === "text") expect(liveChildCount()).toBe(1); // the harness runs while the turn streams
    }
    const kinds = events.map((event) => event.type);
    expect(kinds).toContain("thought");
    expect(kinds).toContain("toolCall");
    expect(kinds.at(-1)).toBe("turnComplete");
    // The client tool ran here: the scripted model quotes its answer (2 + 3).
    const response = await result.final();
    expect(response.text).toContain('Your tool\'s answer: {"result":5}');
    expect(response.usageMetadata.totalTokenCount).toBeGreaterThan(0);
    expect(liveChildCount()).toBe(0);
    expect(leakedSince(before)).toEqual([]);
  });

  it("final() alone runs the turn: the run starts at once, no reader needed", async () => {
    const before = handles();
    const response = await run("Hello again", { policies: [readOnly()], timeoutMs: 60_000 }).final();
    expect(response.text).toContain("scripted demo model");
    expect(liveChildCount()).toBe(0);
    expect(leakedSince(before)).toEqual([]);
  });

  it("leaving the for-await early cancels the turn and stops the harness", async () => {
    const result = run("Hello there", { policies: [allowAll()], timeoutMs: 60_000 });
    for await (const event of result) if (event.type === "thought") break;
    expect(liveChildCount()).toBe(0);
    const error = await failure(result.final());
    expect(error.code).toBe(ErrorCode.Canceled);
  });

  it("the caller's signal cancels the run; abort() resolves once the harness is gone", async () => {
    const controller = new AbortController();
    const result = run("Hello there", { policies: [allowAll()], signal: controller.signal, timeoutMs: 60_000 });
    const iterator = result[Symbol.asyncIterator]();
    await iterator.next();
    controller.abort(new SdkError(ErrorCode.Canceled, "the user pressed Stop"));
    const error = await failure(result.final());
    expect(error.code).toBe(ErrorCode.Canceled);
    await result.done();
    expect(liveChildCount()).toBe(0);
    await iterator.return?.();
  });

  it("refuses a run without a policy (as build() does) before it starts anything", async () => {
    const options = { tools: [add] } as unknown as RunOptions; // what plain JavaScript can pass
    const result = run("Hello there", options);
    const error = await failure(result.final());
    expect(error.code).toBe(ErrorCode.InvalidArgument);
    expect(error.message).toContain("no policy chosen");
    await expect(
      (async () => {
        for await (const _ of result) expect.unreachable("no event without a policy");
      })(),
    ).rejects.toMatchObject({ code: ErrorCode.InvalidArgument });
    expect(liveChildCount()).toBe(0);
  });

  it("reports a start that fails (a missing harness binary) from final() and the stream, leaving nothing running", async () => {
    const before = handles();
    const result = run("Hello there", {
      policies: [confirmRunCommand()],
      transport: (await import("./agent.js")).subprocessTransportFactory({ harnessPath: "/nonexistent/localharness" }),
    });
    const error = await failure(result.final());
    expect(error.code).toBe(ErrorCode.FailedPrecondition);
    expect(error.message).toContain("/nonexistent/localharness");
    expect(liveChildCount()).toBe(0);
    expect(leakedSince(before)).toEqual([]);
  });

  it("new Agent(options) from @antigravity-ts/node gets Node's defaults and needs a policy, like build()", async () => {
    await using agent = await new Agent({ policies: [readOnly()] }).start({ timeoutMs: 30_000 });
    expect(liveChildCount()).toBe(1); // Node's default: the harness as a subprocess
    expect((await agent.chatToCompletion("Hello")).text).toContain("scripted demo model");
    expect(() => new Agent({} as unknown as RunOptions)).toThrow(/no policy chosen/);
  });
});
