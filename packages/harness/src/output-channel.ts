import type { WebSocket } from "ws";
import { OutputEventSchema, create, encodeOutputEvent, type MessageInitShape } from "@antigravity-ts/sdk/wire";

/** The oneof of an `OutputEvent`, as an init object. */
export type OutputEventInit = NonNullable<MessageInitShape<typeof OutputEventSchema>["event"]>;

/** Sends an output event; returns false when it was not sent (socket closed, turn halted). */
export type SendOutput = (event: OutputEventInit) => boolean;

/**
 * The harness → client half of a session. Every frame gets the next `seqNum` (monotonic per
 * session) and `timestampMicros` (§19 `OutputEvent`); both are int64 and go out as decimal strings (§4.1).
 */
export class OutputChannel {
  #seq = 0n;

  constructor(private readonly socket: WebSocket) {}

  /** Encodes and sends one event. */
  send: SendOutput = (event) => {
    if (this.socket.readyState !== this.socket.OPEN) return false;
    this.#seq += 1n;
    const frame = encodeOutputEvent(create(OutputEventSchema, { seqNum: this.#seq, timestampMicros: nowMicros(), event }));
    this.socket.send(frame);
    return true;
  };
}

function nowMicros(): bigint {
  return BigInt(Math.round((performance.timeOrigin + performance.now()) * 1000));
}
