// The two binary messages of the stdio handshake (protocol §3), read and written by hand so that
// the harness answers the handshake without loading the generated schema registry: `InputConfig`
// (fields 1–5, ClientInfo 1–5) and `OutputConfig` (fields 1–2), protobuf wire format. Unknown
// fields are skipped, as protobuf parsers do; handshake-codec.test.ts checks both against
// protobuf-es with the generated schema.

/** What the harness reads from `InputConfig` (protocol §3; absent optional fields stay undefined). */
export interface HandshakeInput {
  storageDirectory?: string;
  port?: number;
  bindAddress?: string;
  clientInfo?: { language?: string; version?: string; languageVersion?: string; os?: string; osVersion?: string };
  env: Record<string, string>;
}

/** A handshake message that is not valid protobuf of the expected shape. */
export class HandshakeFormatError extends Error {
  override readonly name = "HandshakeFormatError";
}

const WIRE_VARINT = 0;
const WIRE_I64 = 1;
const WIRE_LEN = 2;
const WIRE_I32 = 5;
const CLIENT_INFO_FIELDS = ["", "language", "version", "languageVersion", "os", "osVersion"] as const;
const utf8 = new TextDecoder();
const utf8Encoder = new TextEncoder();

/** Parses a binary `InputConfig`; throws {@link HandshakeFormatError} on malformed bytes. */
export function decodeInputConfig(bytes: Uint8Array): HandshakeInput {
  const input: HandshakeInput = { env: {} };
  const reader = new ProtoReader(bytes, "InputConfig");
  while (!reader.done) {
    const [field, wire] = reader.tag();
    if (field === 1 && wire === WIRE_LEN) input.storageDirectory = reader.string();
    else if (field === 2 && wire === WIRE_VARINT) input.port = reader.varint32();
    else if (field === 3 && wire === WIRE_LEN) input.bindAddress = reader.string();
    else if (field === 4 && wire === WIRE_LEN) input.clientInfo = decodeClientInfo(reader.bytes(), input.clientInfo ?? {});
    else if (field === 5 && wire === WIRE_LEN) {
      const [key, value] = decodeMapEntry(reader.bytes());
      input.env[key] = value;
    } else reader.skip(wire);
  }
  return input;
}

/** Binary `OutputConfig{port, api_key}` (both fields have explicit presence: always written). */
export function encodeOutputConfig(port: number, apiKey: string): Uint8Array {
  const key = utf8Encoder.encode(apiKey);
  const out: number[] = [(1 << 3) | WIRE_VARINT];
  pushVarint(out, port);
  out.push((2 << 3) | WIRE_LEN);
  pushVarint(out, key.length);
  const bytes = new Uint8Array(out.length + key.length);
  bytes.set(out);
  bytes.set(key, out.length);
  return bytes;
}

function decodeClientInfo(bytes: Uint8Array, into: NonNullable<HandshakeInput["clientInfo"]>): NonNullable<HandshakeInput["clientInfo"]> {
  const reader = new ProtoReader(bytes, "InputConfig.client_info");
  while (!reader.done) {
    const [field, wire] = reader.tag();
    const name = CLIENT_INFO_FIELDS[field];
    if (name !== undefined && name !== "" && wire === WIRE_LEN) into[name] = reader.string();
    else reader.skip(wire);
  }
  return into;
}

function decodeMapEntry(bytes: Uint8Array): [string, string] {
  const reader = new ProtoReader(bytes, "InputConfig.env");
  let key = "";
  let value = "";
  while (!reader.done) {
    const [field, wire] = reader.tag();
    if (field === 1 && wire === WIRE_LEN) key = reader.string();
    else if (field === 2 && wire === WIRE_LEN) value = reader.string();
    else reader.skip(wire);
  }
  return [key, value];
}

/** Non-negative int32 / uint32 values as a protobuf varint. */
function pushVarint(out: number[], value: number): void {
  if (!Number.isInteger(value) || value < 0 || value > 0xffffffff) throw new RangeError(`cannot encode ${value} as a handshake varint`);
  let rest = value;
  while (rest > 0x7f) {
    out.push((rest & 0x7f) | 0x80);
    rest = Math.floor(rest / 128);
  }
  out.push(rest);
}

class ProtoReader {
  #offset = 0;
  constructor(
    readonly data: Uint8Array,
    readonly message: string,
  ) {}

  get done(): boolean {
    return this.#offset >= this.data.length;
  }

  tag(): [field: number, wire: number] {
    const tag = this.varint32();
    const field = tag >>> 3;
    if (field === 0) this.#fail("field number 0");
    return [field, tag & 7];
  }

  /** A varint, truncated to its low 32 bits (uint32 semantics); at most 10 bytes. */
  varint32(): number {
    let value = 0;
    for (let index = 0; index < 10; index++) {
      if (this.#offset >= this.data.length) this.#fail("truncated varint");
      const byte = this.data[this.#offset++] as number;
      if (index < 5) value += (byte & 0x7f) * 2 ** (7 * index);
      if ((byte & 0x80) === 0) return value % 2 ** 32;
    }
    return this.#fail("varint longer than 10 bytes");
  }

  bytes(): Uint8Array {
    const length = this.varint32();
    const end = this.#offset + length;
    if (end > this.data.length) this.#fail(`a field of ${length} bytes runs past the end`);
    const slice = this.data.subarray(this.#offset, end);
    this.#offset = end;
    return slice;
  }

  string(): string {
    return utf8.decode(this.bytes());
  }

  skip(wire: number): void {
    if (wire === WIRE_VARINT) this.varint32();
    else if (wire === WIRE_LEN) this.bytes();
    else if (wire === WIRE_I64 || wire === WIRE_I32) {
      this.#offset += wire === WIRE_I64 ? 8 : 4;
      if (this.#offset > this.data.length) this.#fail("truncated fixed-width field");
    } else this.#fail(`unsupported wire type ${wire}`);
  }

  #fail(reason: string): never {
    throw new HandshakeFormatError(
      `malformed ${this.message} in the stdio handshake: ${reason} (at byte ${this.#offset}); the client must write a u32-LE length and a binary InputConfig (protocol §3)`,
    );
  }
}
