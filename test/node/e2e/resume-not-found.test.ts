import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Agent, ErrorCode, SdkError, WebSocketTransport, subprocessTransportFactory } from "@antigravity-ts/node";
import {
  harnessEnv,
  harnessExecutable,
  killAllHarnesses,
  startListeningHarness,
  type ListeningHarness,
} from "@antigravity-ts/test-kit";

// Issue 12 item 3: a RESUME of a session id the harness has no record of is `NotFound` (not
// retryable), not `Unavailable`. The reference harness refuses it with close code 1008 and
// "no stored session <id> to resume in <where>"; the SDK maps that close, over both transports.

const SCRIPT = fileURLToPath(new URL("./scripts/faults-script.json", import.meta.url));
const BOUND_MS = 20_000;

describe("resume of an unknown session", () => {
  let workspace = "";
  let harness: ListeningHarness;

  beforeAll(async () => {
    workspace = await mkdtemp(path.join(tmpdir(), "antigravity-resume-404-"));
    harness = await startListeningHarness({ env: harnessEnv(SCRIPT), workspace, apiKey: "resume-key-0123456789" });
  });

  afterAll(async () => {
    await harness.stop();
    await killAllHarnesses();
    await rm(workspace, { recursive: true, force: true });
  });

  it("fails start() with NotFound naming the id; a new session on the same harness still works", async () => {
    const transport = new WebSocketTransport({ host: "127.0.0.1", port: harness.port, apiKey: harness.apiKey });
    const error = await Agent.builder()
      .transport(transport)
      .workspaces(workspace)
      .allowAll()
      .conversationId("00000000-0000-4000-8000-00000000dead")
      .sessionContinuationMode("resume")
      .build()
      .start({ timeoutMs: BOUND_MS })
      .then(
        () => new Error("expected NotFound"),
        (e: unknown) => e,
      );
    expect(error).toBeInstanceOf(SdkError);
    expect(error).toMatchObject({ code: ErrorCode.NotFound, retryable: false, details: { closeCode: 1008 } });
    expect((error as SdkError).message).toContain("no stored session 00000000-0000-4000-8000-00000000dead to resume");
    expect((error as SdkError).message).toContain("start a new session");

    const agent = await Agent.builder()
      .transport(transport)
      .workspaces(workspace)
      .allowAll()
      .build()
      .start({ timeoutMs: BOUND_MS });
    expect(agent.conversationId).not.toBe("");
    await agent.stop();
  }, 60_000);

  it("is NotFound through the subprocess transport too, not a crash", async () => {
    const error = await Agent.builder()
      .transport(
        subprocessTransportFactory({
          harnessPath: await harnessExecutable(),
          env: { ANTIGRAVITY_MODEL_PROVIDER: "scripted", ANTIGRAVITY_SCRIPT: SCRIPT },
        }),
      )
      .workspaces(workspace)
      .allowAll()
      .conversationId("00000000-0000-4000-8000-00000000beef")
      .sessionContinuationMode("resume")
      .build()
      .start({ timeoutMs: BOUND_MS })
      .then(
        () => new Error("expected NotFound"),
        (e: unknown) => e,
      );
    expect(error).toMatchObject({ code: ErrorCode.NotFound, retryable: false });
  }, 60_000);
});
