import { create, type MessageInitShape } from "@bufbuild/protobuf";
import { ErrorCode, SdkError } from "../errors.js";
import {
  OutputEventSchema,
  decodeInitializeConversationEvent,
  decodeInputFrame,
  encodeOutputEvent,
  type InitializeConversationEvent,
  type InitializeConversationResponseSchema,
  type InputEvent,
  type StepUpdateSchema,
  type TrajectoryStateUpdate_State,
  type TrajectoryStateUpdateSchema,
} from "../wire/index.js";
import type { Transport } from "./transport.js";
import { createInMemoryTransport, type InMemoryChannel } from "./in-memory.js";

/** The kinds of frame the SDK sends after the first (`InputEvent` oneof cases). */
export type InputEventCase = Exclude<InputEvent["event"]["case"], undefined>;
/** The payload of one `InputEvent` case. */
export type InputEventValue<C extends InputEventCase> = Extract<InputEvent["event"], { case: C }>["value"];

/**
 * The harness side of an in-memory connection, for scripting a fake harness in unit tests:
 * read and decode what the SDK sends, send `OutputEvent`s back (protocol §4–§13).
 *
 * @example
 * const transport = createFakeHarnessTransport(async (harness) => {
 *   await harness.readInit();
 *   harness.respondInit({ cascadeId: "c1" });
 *   await harness.expect("userInput");
 *   harness.state("c1", TrajectoryStateUpdate_State.FULLY_IDLE);
 * });
 */
export class FakeHarness {
  readonly channel: InMemoryChannel;
  readonly #frames: AsyncIterator<string>;

  constructor(channel: InMemoryChannel) {
    this.channel = channel;
    this.#frames = channel.frames()[Symbol.asyncIterator]();
  }

  /** The next raw frame from the SDK. Throws `ConnectionClosed` if the SDK closed instead. */
  async readRaw(): Promise<string> {
    const next = await this.#frames.next();
    if (next.done === true) throw new SdkError(ErrorCode.ConnectionClosed, "the SDK closed the connection");
    return next.value;
  }

  /** The first frame: the `InitializeConversationEvent` (§5). */
  async readInit(): Promise<InitializeConversationEvent> {
    return decodeInitializeConversationEvent(await this.readRaw());
  }

  /** The next `InputEvent`. */
  async read(): Promise<InputEvent> {
    return decodeInputFrame(await this.readRaw());
  }

  /** The next `InputEvent`, which must be of kind `kind`; returns its payload. */
  async expect<C extends InputEventCase>(kind: C): Promise<InputEventValue<C>> {
    const event = await this.read();
    if (event.event.case !== kind) {
      throw new SdkError(
        ErrorCode.ProtocolError,
        `fake harness expected ${kind}, got ${event.event.case ?? "an empty InputEvent"}`,
      );
    }
    return event.event.value as InputEventValue<C>;
  }

  /** True once the SDK closed the connection: reads the next frame and expects the end. */
  async closedBySdk(): Promise<boolean> {
    const next = await this.#frames.next();
    return next.done === true;
  }

  /** Sends one `OutputEvent`. */
  send(event: MessageInitShape<typeof OutputEventSchema>): void {
    this.channel.send(encodeOutputEvent(create(OutputEventSchema, event)));
  }

  /** Sends a frame as is (for malformed-frame tests). */
  sendRaw(frame: string): void {
    this.channel.send(frame);
  }

  /** Sends the `initializeConversationResponse` (§5). */
  respondInit(response: MessageInitShape<typeof InitializeConversationResponseSchema> = {}): void {
    this.send({ event: { case: "initializeConversationResponse", value: response } });
  }

  /** Sends one `stepUpdate`. */
  step(update: MessageInitShape<typeof StepUpdateSchema>): void {
    this.send({ event: { case: "stepUpdate", value: update } });
  }

  /** Sends one `trajectoryStateUpdate`. */
  state(
    trajectoryId: string,
    state: TrajectoryStateUpdate_State,
    extra: MessageInitShape<typeof TrajectoryStateUpdateSchema> = {},
  ): void {
    this.send({ event: { case: "trajectoryStateUpdate", value: { ...extra, trajectoryId, state } } });
  }

  /** Closes the connection normally. */
  close(): Promise<void> {
    return this.channel.close();
  }

  /** Drops the connection: the SDK's reader sees `error` (default `ConnectionClosed`). */
  drop(error?: SdkError): void {
    this.channel.drop(error);
  }
}

/** A transport running a fake harness script per connection; see {@link createFakeHarnessTransport}. */
export interface FakeHarnessTransport extends Transport {
  /** Number of `connect()` calls so far. */
  readonly connections: number;
  /** Resolves when every script started so far has finished; rejects with the first failure. */
  settled(): Promise<void>;
}

/**
 * A transport whose every `connect()` runs `script` against a new {@link FakeHarness}. A failing
 * script drops the connection with `HarnessCrashed` and makes `settled()` reject, so a broken
 * script fails the test.
 */
export function createFakeHarnessTransport(script: (harness: FakeHarness) => Promise<void>): FakeHarnessTransport {
  const runs: Promise<void>[] = [];
  const transport = createInMemoryTransport((server) => {
    const run = script(new FakeHarness(server));
    runs.push(run);
    return run;
  });
  return {
    connect: (options) => transport.connect(options),
    get connections() {
      return runs.length;
    },
    settled: async () => {
      await Promise.all(runs);
    },
  };
}
