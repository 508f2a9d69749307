import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { SubprocessTransport } from "@antigravity-ts/node";
import { WebSocketTransport } from "@antigravity-ts/sdk";
import { LOCALHARNESS_CAPABILITIES } from "@antigravity-ts/sdk/connection";
import {
  HARNESS_CONNECTION_KNOWN_FAILURES,
  defineConnectionConformance,
  harnessConformanceSubject,
  harnessEnv,
  harnessExecutable,
  killAllHarnesses,
  startListeningHarness,
  writeConformanceScript,
  type ListeningHarness,
} from "@antigravity-ts/test-kit";
import { afterAll, beforeAll, describe } from "vitest";

// The connection conformance kit (@antigravity-ts/sdk/testing) against HarnessConnection over
// the real reference harness with the conformance script: a child process per check over stdio,
// and one listening harness over WebSocket. The mock and the in-memory harness run it in
// packages/sdk/src/testing/connection-conformance.test.ts.

let script = "";
let workspace = "";
let harnessPath = "";
let listening: ListeningHarness | undefined;

beforeAll(async () => {
  script = await writeConformanceScript();
  workspace = await mkdtemp(path.join(tmpdir(), "antigravity-conformance-ws-"));
  harnessPath = await harnessExecutable();
  listening = await startListeningHarness({ env: harnessEnv(script), workspace, apiKey: "conformance-key-0123456789" });
});

afterAll(async () => {
  await listening?.stop();
  await killAllHarnesses();
  await rm(path.dirname(script), { recursive: true, force: true });
  await rm(workspace, { recursive: true, force: true });
});

const options = { knownFailures: HARNESS_CONNECTION_KNOWN_FAILURES };

describe("over SubprocessTransport", () => {
  defineConnectionConformance(
    "HarnessConnection over SubprocessTransport",
    LOCALHARNESS_CAPABILITIES,
    () => harnessConformanceSubject(new SubprocessTransport({ harnessPath, env: harnessEnv(script), cwd: workspace })),
    options,
  );
});

describe("over WebSocketTransport", () => {
  defineConnectionConformance(
    "HarnessConnection over WebSocketTransport",
    LOCALHARNESS_CAPABILITIES,
    () => {
      const harness = listening as ListeningHarness;
      return harnessConformanceSubject(
        new WebSocketTransport({ host: "127.0.0.1", port: harness.port, apiKey: harness.apiKey }),
      );
    },
    options,
  );
});
