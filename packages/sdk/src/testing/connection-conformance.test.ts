import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createInMemoryHarness, parseScript, type InMemoryHarness } from "@antigravity-ts/harness";
import {
  CONFORMANCE_SCRIPT,
  HARNESS_CONNECTION_KNOWN_FAILURES,
  defineConnectionConformance,
  harnessConformanceSubject,
  type ClosableConformanceSubject,
} from "@antigravity-ts/test-kit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LOCALHARNESS_CAPABILITIES } from "../connection/capabilities.js";
import type { Connection } from "../connection/connection.js";
import type { Turn, TurnObserver, TurnRecorder } from "../connection/turn.js";
import { ErrorCode, SdkError } from "../errors.js";
import type { Step } from "../step.js";
import { StepStatus } from "../step.js";
import { connectionConformanceChecks, type ConformancePlay } from "./connection-conformance.js";
import { createMockConnection, type MockConnection, type MockTurn } from "./mock-connection.js";

// The connection conformance kit against createMockConnection and HarnessConnection over the
// reference harness in memory (the subprocess and WebSocket transports: test/node/e2e), and
// against deliberately broken connections, which it must fail.

const USAGE = { promptTokenCount: 4, candidatesTokenCount: 6, totalTokenCount: 10 };

/** The mock's rendering of each play (see ConformancePlay). */
function mockTurn(play: ConformancePlay, n: number): MockTurn {
  const id = `${play}-${n}`;
  switch (play) {
    case "text":
      return {
        steps: [
          { id, contentDelta: "Hello ", status: StepStatus.Active },
          { id, contentDelta: "from the mock." },
        ],
        usage: USAGE,
      };
    case "slow":
      return {
        steps: Array.from({ length: 5 }, (_, i) => ({ id, contentDelta: `word${i} `, status: StepStatus.Active })),
        delayMs: 20,
        untilHalted: true,
        usage: USAGE,
      };
    case "failing":
      return {
        steps: [{ id, content: "About to fail." }],
        error: new SdkError(ErrorCode.ExecutionError, "the mock fails this turn"),
        usage: USAGE,
      };
    case "late":
      return {
        steps: [{ id, content: "This step ends", status: StepStatus.Active }],
        lateSteps: [{ id, content: "This step ends late." }],
        usage: USAGE,
      };
  }
}

function mockSubject(
  connection: MockConnection = createMockConnection(),
  view: Connection = connection,
  waitMs?: number,
): ClosableConformanceSubject {
  let n = 0;
  return {
    connection: view,
    prompt: (play) => {
      connection.pushTurn(mockTurn(play, n++));
      return `play ${play}`;
    },
    startTurnOnItsOwn: async () => connection.startTurn(mockTurn("text", n++)),
    close: () => connection.disconnect(),
    ...(waitMs === undefined ? {} : { waitMs }),
  };
}

defineConnectionConformance("createMockConnection", { ...LOCALHARNESS_CAPABILITIES, wire: "mock" }, async () =>
  mockSubject(),
);

describe("HarnessConnection over the reference harness in memory", () => {
  let workspace = "";
  let harness: InMemoryHarness | undefined;
  beforeAll(async () => {
    workspace = await mkdtemp(path.join(tmpdir(), "antigravity-conformance-"));
    harness = createInMemoryHarness({ workspace, script: parseScript(CONFORMANCE_SCRIPT) });
  });
  afterAll(async () => {
    await harness?.close();
    await rm(workspace, { recursive: true, force: true });
  });
  defineConnectionConformance(
    "HarnessConnection over createInMemoryHarness",
    LOCALHARNESS_CAPABILITIES,
    () => harnessConformanceSubject(harness as InMemoryHarness),
    {
      knownFailures: HARNESS_CONNECTION_KNOWN_FAILURES,
    },
  );
});

/** `mock` with some members replaced: a deliberately broken connection. */
function broken(mock: MockConnection, overrides: Partial<Connection>): Connection {
  return new Proxy(mock, {
    get(target, key) {
      if (Object.hasOwn(overrides, key)) return overrides[key as keyof Connection];
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

/** Runs every check against a fresh subject from `make`; returns the failures by check name. */
async function failures(make: () => ClosableConformanceSubject): Promise<Map<string, string>> {
  const failed = new Map<string, string>();
  for (const check of connectionConformanceChecks) {
    const subject = make();
    try {
      await check.run(subject);
    } catch (error) {
      failed.set(check.name, (error as Error).message);
    } finally {
      await subject.close();
    }
  }
  return failed;
}

const named = (fragment: string): string => {
  const check = connectionConformanceChecks.find((c) => c.name.includes(fragment));
  if (check === undefined) throw new Error(`no check named like ${fragment}`);
  return check.name;
};

describe("the conformance kit fails a broken connection", () => {
  it("passes the mock connection as it is (the baseline of the cases below)", async () => {
    expect(await failures(() => mockSubject())).toEqual(new Map());
  });

  it("fails one whose recorder misses a turn's first step (readers still see it)", async () => {
    const failed = await failures(() => {
      const mock = createMockConnection();
      const observeTurns = (observer: TurnObserver): void =>
        mock.observeTurns({
          turnStarted(turn: Turn) {
            const record = turn.record.bind(turn);
            turn.record = (recorder: TurnRecorder) => {
              let first = true;
              record({ ...recorder, step: (step: Step) => (first ? (first = false) : recorder.step(step)) });
            };
            observer.turnStarted(turn);
          },
        });
      return mockSubject(mock, broken(mock, { observeTurns }));
    });
    expect(failed.get(named("each step is recorded before a reader sees it"))).toMatch(
      /step 0 .* recorded before the reader saw it/,
    );
  });

  it("fails one that never ends a halted turn, by a bounded wait instead of hanging", async () => {
    const failed = await failures(() => {
      const mock = createMockConnection();
      return mockSubject(mock, broken(mock, { halt: async () => undefined }), 300);
    });
    expect(failed.get(named("a halt ends the turn"))).toMatch(
      /timed out after 300 ms waiting for reader 0 after halt\(\)/,
    );
    expect(failed.has(named("readers are independent"))).toBe(false);
  });

  it("fails one whose readers throw plain errors instead of SdkErrors", async () => {
    const failed = await failures(() => {
      const mock = createMockConnection();
      const receiveSteps = (options?: { signal?: AbortSignal; timeoutMs?: number }): AsyncIterable<Step> => ({
        async *[Symbol.asyncIterator]() {
          try {
            yield* mock.receiveSteps(options);
          } catch (error) {
            throw new Error((error as Error).message);
          }
        },
      });
      return mockSubject(mock, broken(mock, { receiveSteps }));
    });
    expect(failed.get(named("a turn that fails on the peer"))).toMatch(
      /expected an SdkError, got Error: the mock fails this turn/,
    );
    expect(failed.get(named("disconnect ends everything"))).toMatch(/expected an SdkError ConnectionClosed, got Error/);
  });

  it("fails one that drops the update a step gets after its turn ended", async () => {
    const failed = await failures(() => {
      const mock = createMockConnection();
      const observeTurns = (observer: TurnObserver): void =>
        mock.observeTurns({
          turnStarted(turn: Turn) {
            const record = turn.record.bind(turn);
            turn.record = (recorder: TurnRecorder) => record({ ...recorder, late: () => undefined });
            observer.turnStarted(turn);
          },
        });
      return mockSubject(mock, broken(mock, { observeTurns }), 300);
    });
    expect(failed.get(named("an update of a step that arrives after its turn ended"))).toMatch(
      /timed out after 300 ms waiting for the late update/,
    );
  });
});
