import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ErrorCode, SdkError } from "@antigravity-ts/sdk";
import { decodeInputConfig } from "@antigravity-ts/sdk/wire";
import { connectHarnessSocket } from "../socket/connect-harness-socket.js";
import { liveChildCount } from "./child-registry.js";
import { HarnessProcess } from "./harness-process.js";
import { SubprocessTransport, type SubprocessChannel } from "./subprocess-transport.js";
import { fakePath, isAlive, waitUntilGone } from "./testing/process-probe.js";

const opened: SubprocessChannel[] = [];
const processes: HarnessProcess[] = [];

afterEach(async () => {
  await Promise.all(opened.splice(0).map((channel) => channel.close()));
  await Promise.all(processes.splice(0).map((harness) => harness.kill()));
  expect(liveChildCount()).toBe(0);
});

async function connectFake(
  options: ConstructorParameters<typeof SubprocessTransport>[0] = {},
): Promise<SubprocessChannel> {
  const channel = await new SubprocessTransport({ harnessPath: fakePath("fake-harness.mjs"), ...options }).connect({
    timeoutMs: 20_000,
  });
  opened.push(channel);
  return channel;
}

async function roundTrip(channel: SubprocessChannel, frame: string): Promise<string> {
  channel.send(frame);
  for await (const reply of channel.frames()) return reply;
  throw new Error("channel ended without a reply");
}

async function failure(promise: Promise<unknown>): Promise<SdkError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(SdkError);
  return error as SdkError;
}

/** How `frames()` ends when the harness goes away (no frames expected before). */
function framesFailure(channel: SubprocessChannel): Promise<SdkError> {
  return failure(
    (async () => {
      for await (const _ of channel.frames()) {
        // no frames expected
      }
    })(),
  );
}

/** After a fault, the next connect must work as if nothing happened. */
async function expectNextConnectWorks(): Promise<void> {
  const channel = await connectFake();
  expect(await roundTrip(channel, "ping")).toBe("ping");
}

describe("SubprocessTransport handshake and channel", () => {
  it("sends the InputConfig, merges the environment and relays frames both ways", async () => {
    const channel = await connectFake({ env: { AG_TEST_VAR: "from-agent-env" }, clientInfo: { version: "9.9.9" } });
    const [inputFrame, userVar, parentPath] = await (async () => {
      const replies: string[] = [];
      channel.send("inputConfig");
      channel.send("env:AG_TEST_VAR");
      channel.send("env:PATH");
      for await (const reply of channel.frames()) {
        replies.push(reply);
        if (replies.length === 3) break;
      }
      return replies;
    })();
    const input = decodeInputConfig(Buffer.from(inputFrame ?? "", "base64"));
    expect(input.storageDirectory).toBe(channel.storageDirectory);
    expect(input.storageDirectory).toMatch(/antigravity_/);
    expect(existsSync(channel.storageDirectory)).toBe(true);
    expect(input.clientInfo?.language).toBe("typescript");
    expect(input.clientInfo?.version).toBe("9.9.9");
    expect(input.clientInfo?.languageVersion).toBe(process.versions.node);
    expect(input.clientInfo?.os).toBe(process.platform);
    expect(input.env).toEqual({ AG_TEST_VAR: "from-agent-env" });
    expect(userVar).toBe("from-agent-env");
    expect(parentPath).toBe(process.env.PATH);
  });

  it("uses saveDir as the storage directory and keeps it on close", async () => {
    const channel = await connectFake({ saveDir: process.cwd() });
    const input = decodeInputConfig(Buffer.from(await roundTrip(channel, "inputConfig"), "base64"));
    expect(input.storageDirectory).toBe(process.cwd());
    await channel.close();
    expect(existsSync(process.cwd())).toBe(true);
  });

  it("shuts the child down in order on close: stdin EOF, then exit 0; the temp dir is removed", async () => {
    const channel = await connectFake();
    const { pid, storageDirectory } = channel;
    await channel.close();
    expect(await channel.exited).toEqual({ code: 0, signal: null });
    expect(channel.stderrTail()).toContain("Stdin closed, cleaning up...");
    expect(isAlive(pid)).toBe(false);
    expect(existsSync(storageDirectory)).toBe(false);
    expect(() => channel.send("late")).toThrow(SdkError);
  });

  it("closes on Symbol.asyncDispose (await using)", async () => {
    const channel = await connectFake();
    await channel[Symbol.asyncDispose]();
    expect(await channel.exited).toEqual({ code: 0, signal: null });
  });

  it("escalates to SIGKILL when the harness ignores stdin EOF and SIGTERM", async () => {
    const channel = await connectFake({ env: { FAKE_HARNESS_STUBBORN: "1" }, shutdownTimeoutMs: 200 });
    await channel.close();
    expect(await channel.exited).toEqual({ code: null, signal: "SIGKILL" });
    expect(channel.stderrTail()).toContain("ignoring SIGTERM");
    expect(isAlive(channel.pid)).toBe(false);
  });

  it("ends frames() normally when the harness closes the socket with 1000 and keeps running", async () => {
    const channel = await connectFake();
    channel.send("close:1000");
    const received: string[] = [];
    for await (const frame of channel.frames()) received.push(frame);
    expect(received).toEqual([]);
  });

  it("rejects with Canceled when the signal is already aborted", async () => {
    const controller = new AbortController();
    controller.abort();
    const error = await failure(
      new SubprocessTransport({ harnessPath: fakePath("fake-harness.mjs") }).connect({ signal: controller.signal }),
    );
    expect(error.code).toBe(ErrorCode.Canceled);
  });
});

describe("SubprocessTransport faults", () => {
  it("reports a missing binary as FailedPrecondition (not retryable) with the path and what to set", async () => {
    const missing = join(process.cwd(), "no-such-dir", "localharness");
    const error = await failure(new SubprocessTransport({ harnessPath: missing }).connect());
    expect(error.code).toBe(ErrorCode.FailedPrecondition);
    expect(error.retryable).toBe(false);
    expect(error.message).toBe(
      `harness binary not found at ${missing}: the harnessPath option names this path; point it at the harness binary`,
    );
    await expectNextConnectWorks();
  });

  it("blames a set but wrong ANTIGRAVITY_HARNESS_PATH, not a missing one", async () => {
    const missing = join(process.cwd(), "no-such-dir", "localharness");
    const fromAgentEnv = await failure(
      new SubprocessTransport({ env: { ANTIGRAVITY_HARNESS_PATH: missing } }).connect(),
    );
    expect(fromAgentEnv.message).toBe(
      `harness binary not found at ${missing}: ANTIGRAVITY_HARNESS_PATH in the agent's env names this path; point it at the harness binary or remove it`,
    );
    const saved = process.env["ANTIGRAVITY_HARNESS_PATH"];
    process.env["ANTIGRAVITY_HARNESS_PATH"] = missing;
    try {
      const fromProcess = await failure(new SubprocessTransport({}).connect());
      expect(fromProcess).toMatchObject({
        code: ErrorCode.FailedPrecondition,
        details: { source: "process-env", binaryPath: missing },
      });
      expect(fromProcess.message).toContain(
        "the environment variable ANTIGRAVITY_HARNESS_PATH names this path; point it at the harness binary or unset it",
      );
      expect(fromProcess.message).not.toContain("set ANTIGRAVITY_HARNESS_PATH or");
    } finally {
      if (saved === undefined) delete process.env["ANTIGRAVITY_HARNESS_PATH"];
      else process.env["ANTIGRAVITY_HARNESS_PATH"] = saved;
    }
  });

  it("reports a directory as the binary as InvalidArgument", async () => {
    const error = await failure(new SubprocessTransport({ harnessPath: process.cwd() }).connect());
    expect(error.code).toBe(ErrorCode.InvalidArgument);
  });

  it("reports a non-executable file as PermissionDenied", async () => {
    const error = await failure(
      new SubprocessTransport({ harnessPath: join(process.cwd(), "package.json") }).connect(),
    );
    expect(error.code).toBe(ErrorCode.PermissionDenied);
    expect(error.message).toContain("chmod +x");
  });

  it("reports a harness that exits before the handshake as HarnessCrashed with its exit code and stderr", async () => {
    const error = await failure(
      new SubprocessTransport({ harnessPath: fakePath("exit-before-handshake.mjs") }).connect(),
    );
    expect(error.code).toBe(ErrorCode.HarnessCrashed);
    expect(error.message).toMatch(/^harness exited with code 3 before the handshake: /);
    expect(error.message).toContain("fatal: cannot open the model configuration (fake)");
    expect(await waitUntilGone(error.details.pid as number)).toBe(true);
    await expectNextConnectWorks();
  });

  it("reports a native harness that fails before its stdout is read as HarnessCrashed at once, not at the deadline", async () => {
    // Node drains the stdout of a child that exits before anything listens to it, so the stream's
    // 'end' is gone by the time the handshake reads: the exit must be what ends the wait.
    const dir = mkdtempSync(join(tmpdir(), "failing-harness-"));
    const path = join(dir, "harness");
    writeFileSync(path, "#!/bin/sh\necho 'harness: cannot start' >&2\nexit 9\n", { mode: 0o755 });
    try {
      const harness = await HarnessProcess.spawn({ path, source: "option", isJavaScript: false }, { env: process.env });
      processes.push(harness);
      expect(await harness.exited).toEqual({ code: 9, signal: null });
      const error = await failure(harness.handshake({ env: {} }, AbortSignal.timeout(20_000)));
      expect(error.code).toBe(ErrorCode.HarnessCrashed);
      expect(error.message).toMatch(/^harness exited with code 9 before the handshake: harness: cannot start/);
      // A wait that only the deadline ended would fail with DeadlineExceeded, not with the exit.
      const viaTransport = await failure(new SubprocessTransport({ harnessPath: path }).connect({ timeoutMs: 20_000 }));
      expect(viaTransport.code).toBe(ErrorCode.HarnessCrashed);
      expect(viaTransport.message).toMatch(/^harness exited with code 9 before the handshake: harness: cannot start/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("reports garbage on stdout as ProtocolError with the stderr tail, and kills the child", async () => {
    const error = await failure(new SubprocessTransport({ harnessPath: fakePath("garbage-stdout.mjs") }).connect());
    expect(error.code).toBe(ErrorCode.ProtocolError);
    expect(error.message).toContain("is not an OutputConfig");
    expect(error.message).toContain("fake harness: printing a banner on stdout");
    expect(await waitUntilGone(error.details.pid as number)).toBe(true);
    await expectNextConnectWorks();
  });

  it("bounds the handshake by handshakeTimeoutMs and by the caller's signal", async () => {
    // Long enough for the silent harness to start and say so on stderr on a loaded machine (its
    // words are in the error); the deadline itself is what is tested.
    const silent = new SubprocessTransport({ harnessPath: fakePath("silent-harness.mjs"), handshakeTimeoutMs: 2_000 });
    const timedOut = await failure(silent.connect());
    expect(timedOut.code).toBe(ErrorCode.DeadlineExceeded);
    expect(timedOut.message).toContain("during the harness handshake");
    expect(timedOut.message).toContain("fake harness: thinking about it");
    expect(await waitUntilGone(timedOut.details.pid as number)).toBe(true);

    // Abort once the harness is demonstrably running and waiting in the handshake.
    const controller = new AbortController();
    const pending = new SubprocessTransport({
      harnessPath: fakePath("silent-harness.mjs"),
      onStderr: () => controller.abort(),
    }).connect({ signal: controller.signal });
    const canceled = await failure(pending);
    expect(canceled.code).toBe(ErrorCode.Canceled);
    expect(await waitUntilGone(canceled.details.pid as number)).toBe(true);
    await expectNextConnectWorks();
  });

  it("refuses a wrong api key with PermissionDenied without retrying, and accepts the right one", async () => {
    const harness = await HarnessProcess.spawn(
      { path: fakePath("fake-harness.mjs"), source: "option", isJavaScript: true },
      { env: process.env },
    );
    processes.push(harness);
    const output = await harness.handshake({ storageDirectory: process.cwd(), env: {} }, new AbortController().signal);
    const error = await failure(
      connectHarnessSocket({ port: output.port, apiKey: "not-the-key", attempts: 3, timeoutMs: 10_000 }),
    );
    expect(error.code).toBe(ErrorCode.PermissionDenied);
    expect(error.details.httpCode).toBe(401);
    expect(error.message).toContain("HTTP 401: invalid api key");
    expect(error.message).toContain("refused the api key the harness's handshake gave");
    const channel = await connectHarnessSocket({ port: output.port, apiKey: output.apiKey });
    await channel.close();
    await harness.shutdown(2_000);
    expect(harness.exit).toEqual({ code: 0, signal: null });
  });

  it("reports nothing listening as Unavailable after the retries", async () => {
    const error = await failure(connectHarnessSocket({ port: 1, apiKey: "k", attempts: 2, backoffMs: 10 }));
    expect(error.code).toBe(ErrorCode.Unavailable);
    expect(error.message).toContain("after 2 attempts");
  });

  it("throws HarnessCrashed from frames() when the harness is killed while frames flow", async () => {
    const channel = await connectFake();
    channel.send("stream");
    let received = 0;
    const error = await failure(
      (async () => {
        for await (const frame of channel.frames()) {
          expect(JSON.parse(frame)).toEqual({ seqNum: String(received) });
          received++;
          if (received === 100) process.kill(channel.pid, "SIGKILL");
        }
      })(),
    );
    expect(received).toBeGreaterThanOrEqual(100);
    expect(error.code).toBe(ErrorCode.HarnessCrashed);
    expect(error.message).toContain("was killed by SIGKILL unexpectedly");
    expect(error.message).toContain("fake harness: listening on");
    expect(error.details.exitSignal).toBe("SIGKILL");
    expect(isAlive(channel.pid)).toBe(false);
    await channel.close();
    await expectNextConnectWorks();
  });

  it("throws HarnessCrashed from frames() when the harness exits on its own", async () => {
    const channel = await connectFake();
    channel.send("exit:7");
    const error = await framesFailure(channel);
    expect(error.code).toBe(ErrorCode.HarnessCrashed);
    expect(error.details.exitCode).toBe(7);
    await expectNextConnectWorks();
  });

  it("drops a socket that outlives the harness and throws HarnessCrashed from frames()", async () => {
    const channel = await connectFake();
    channel.send("orphan:5");
    const error = await framesFailure(channel);
    expect(error.code).toBe(ErrorCode.HarnessCrashed);
    expect(error.details.exitCode).toBe(5);
    expect(channel.isOpen).toBe(false);
    const keeper = Number(/keeper pid (\d+)/.exec(channel.stderrTail())?.[1]);
    expect(await waitUntilGone(keeper)).toBe(true);
    await expectNextConnectWorks();
  });
});
