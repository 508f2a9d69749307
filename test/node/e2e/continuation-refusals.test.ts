import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  Agent,
  ErrorCode,
  SdkError,
  WebSocketTransport,
  allowAll,
  deferToUser,
  type Continuation,
  type Transport,
} from "@antigravity-ts/sdk";
import { harnessEnv, killAllHarnesses, startListeningHarness, type ListeningHarness } from "@antigravity-ts/test-kit";

// The security issue's items 5 and 6 against the reference harness: a continuation nested too
// deep (text or object) or too large, and a signature spelled in one of its three non-canonical
// ways, are refused by agent.resume with a typed SdkError before the agent connects at all.

const SCRIPT = fileURLToPath(new URL("./scripts/continuation-script.json", import.meta.url));
const SECRET = "continuation-secret-0123456789abcdef";
const BOUND_MS = 30_000;
const BASE64URL = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

let workspace = "";
let harness: ListeningHarness;

beforeAll(async () => {
  workspace = await mkdtemp(path.join(tmpdir(), "antigravity-continuation-refusals-"));
  harness = await startListeningHarness({ env: harnessEnv(SCRIPT), workspace, apiKey: "refusals-key-0123456789" });
});

afterAll(async () => {
  await killAllHarnesses();
  await rm(workspace, { recursive: true, force: true });
});

/** An agent on the harness, and how many channels its transport opened (0: nothing was sent). */
function agent(secret: string | undefined): { agent: Agent; connects: () => number } {
  const ws = new WebSocketTransport({ host: "127.0.0.1", port: harness.port, apiKey: harness.apiKey });
  let connects = 0;
  const transport: Transport = {
    connect: (options) => {
      connects++;
      return ws.connect(options);
    },
  };
  const options = { transport, workspaces: [workspace], policies: [deferToUser("run_command"), allowAll()] };
  return {
    agent: new Agent(secret === undefined ? options : { ...options, continuationSecret: secret }),
    connects: () => connects,
  };
}

async function failure(promise: Promise<unknown>): Promise<SdkError> {
  const error = await promise.then(
    () => new Error("expected a failure"),
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(SdkError);
  return error as SdkError;
}

/** Pauses a real turn at its first run_command; returns the signed continuation. */
async function pause(): Promise<Continuation> {
  const started = await agent(SECRET).agent.start({ timeoutMs: BOUND_MS });
  const final = await started.chat("two commands please").final();
  await started.stop();
  expect(final.awaitingConfirmation?.continuation.signature).toMatch(/^hmac-sha256:/);
  return final.awaitingConfirmation?.continuation as Continuation;
}

function withArgs(continuation: Continuation, args: unknown, signed: boolean): Continuation {
  const copy = structuredClone(continuation);
  (copy.payload.pendingToolCalls[0] as { args: unknown }).args = args;
  if (!signed) delete copy.signature;
  return copy;
}

describe("continuations refused before anything is sent", () => {
  it("a continuation nested 1,000,000 deep (text), 200,000 deep (object) or of 20 MiB is InvalidArgument, with or without a secret", async () => {
    const continuation = await pause();
    const id = continuation.payload.pendingToolCalls[0]?.id as string;
    let deep: unknown = [];
    for (let i = 1; i < 200_000; i++) deep = [deep];
    const huge = Array.from({ length: 20 }, () => "x".repeat(1024 * 1024));
    const cases = (signed: boolean): [string, unknown][] => [
      [
        "too-deep",
        JSON.stringify(withArgs(continuation, null, signed)).replace(
          '"args":null',
          `"args":${"[".repeat(1_000_000)}${"]".repeat(1_000_000)}`,
        ),
      ],
      ["too-deep", withArgs(continuation, deep, signed)],
      ["too-large", withArgs(continuation, huge, signed)],
    ];
    for (const [secret, signed] of [
      [SECRET, true],
      [undefined, false],
    ] as const) {
      for (const [reason, value] of cases(signed)) {
        const { agent: resuming, connects } = agent(secret);
        const error = await failure(
          resuming.resume(value, { toolCallId: id, approved: true }, { timeoutMs: BOUND_MS }),
        );
        expect(error).toMatchObject({ code: ErrorCode.InvalidArgument, details: { reason } });
        expect(connects()).toBe(0);
      }
    }
  }, 120_000);

  it("the three non-canonical spellings of a valid signature are refused; the canonical one resumes", async () => {
    const continuation = await pause();
    const id = continuation.payload.pendingToolCalls[0]?.id as string;
    const signature = continuation.signature as string;
    const last = BASE64URL.indexOf(signature.at(-1) as string);
    for (const bits of [1, 2, 3]) {
      const respelled = { ...continuation, signature: `${signature.slice(0, -1)}${BASE64URL[last + bits]}` };
      const { agent: resuming, connects } = agent(SECRET);
      const error = await failure(
        resuming.resume(respelled, { toolCallId: id, approved: false }, { timeoutMs: BOUND_MS }),
      );
      expect(error).toMatchObject({ code: ErrorCode.InvalidArgument, details: { reason: "malformed" } });
      expect(connects()).toBe(0);
    }
    const { agent: resuming, connects } = agent(SECRET);
    const { agent: resumed, stream } = await resuming.resume(
      continuation,
      { toolCallId: id, approved: false },
      { timeoutMs: BOUND_MS },
    );
    expect(connects()).toBe(1);
    expect((await stream.final()).awaitingConfirmation?.toolCall.name).toBe("run_command"); // the turn's second command
    await resumed.stop();
  }, 120_000);
});
