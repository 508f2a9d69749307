export { createMockConnection } from "./mock-connection.js";
export type { MockConnection, MockConnectionOptions, MockSentLog, MockTurn } from "./mock-connection.js";
export { mockStep } from "./mock-step.js";
export type { MockStepDefaults } from "./mock-step.js";
export { createChannelPair, createInMemoryTransport } from "../transport/in-memory.js";
export type { InMemoryChannel } from "../transport/in-memory.js";
export { FakeHarness, createFakeHarnessTransport } from "../transport/in-memory-harness.js";
export type { FakeHarnessTransport, InputEventCase, InputEventValue } from "../transport/in-memory-harness.js";
export { sampleSnapshot, storeContractChecks } from "./store-contract.js";
export type { StoreContractCheck, StoreContractSubject } from "./store-contract.js";
export { seededRandom } from "./seeded-random.js";
export { connectionConformanceChecks } from "./connection-conformance.js";
export type {
  ConformancePlay,
  ConnectionConformanceCheck,
  ConnectionConformanceSubject,
} from "./connection-conformance.js";
