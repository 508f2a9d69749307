/**
 * The workspace's private test kit (never published, like connect-es's conformance kit): one of
 * each helper the test suites share — the harness launcher, the scripted-harness environment,
 * the process probe, `deferred()`, wire `StepUpdate` builders, the policy precedence cases, the
 * transport-independent end-to-end suite and the connection conformance runner.
 * @module
 */
export { deferred, type Deferred } from "./deferred.js";
export {
  WAIT_MS,
  harnessEnv,
  harnessExecutable,
  killAllHarnesses,
  spawnHarness,
  startListeningHarness,
  type HarnessBuild,
  type HarnessExit,
  type HarnessProcess,
  type ListeningHarness,
  type ListeningHarnessOptions,
  type SpawnHarnessOptions,
} from "./harness-launcher.js";
export {
  REFERENCE_HARNESS_BIN,
  REPO_ROOT,
  ensureReferenceHarness,
  ensureScriptedReferenceHarness,
} from "./reference-harness.js";
export { GONE_WAIT_MS, argvGone, pidOfArgv, pidsOfArgv, processAlive, waitUntilGone } from "./process-probe.js";
export {
  customToolStep,
  stepUpdate,
  stepUpdateFromJson,
  textStep,
  type StepPlace,
  type StepUpdateInit,
} from "./step-updates.js";
export { defineE2ESuite, type E2EContext, type MakeTransport } from "./e2e-suite.js";
export { silentTcpServer, type SilentTcpServer } from "./silent-tcp-server.js";
export { PRECEDENCE_CASES, type PrecedenceCase, type PrecedenceRule } from "./precedence-cases.js";
export {
  CONFORMANCE_PROMPTS,
  CONFORMANCE_SCRIPT,
  HARNESS_CONNECTION_KNOWN_FAILURES,
  LATE_MARKER,
  defineConnectionConformance,
  harnessConformanceSubject,
  lateStepTransport,
  writeConformanceScript,
  type ClosableConformanceSubject,
  type ConnectionConformanceOptions,
} from "./connection-conformance.js";
export {
  GEMINI_CLI,
  GEMINI_ROUTER,
  geminiScratch,
  geminiSessionText,
  geminiStream,
  geminiText,
  geminiUsage,
  type GeminiScratch,
} from "./gemini-cli.js";
