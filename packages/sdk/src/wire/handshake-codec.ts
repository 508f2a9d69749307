// The two binary messages of the stdio handshake (protocol §3), read and written by hand, without
// the generated schema registry, by both sides: the client (`@antigravity-ts/node`) writes
// `InputConfig` (fields 1–5, ClientInfo 1–5) and reads `OutputConfig` (fields 1–2); the
// reference harness reads the one and writes the other. Protobuf wire format; unknown fields are
// skipped, as protobuf parsers do. handshake-codec.test.ts checks every direction against
// protobuf-es with the generated schema.

/** `InputConfig` (protocol §3) as plain data; absent optional fields stay undefined. */
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
const CLIENT_HINT = "the client must write a u32-LE length and a binary InputConfig (protocol §3)";
const HARNESS_HINT = "the harness must answer with a u32-LE length and a binary OutputConfig (protocol §3)";

/** `OutputConfig` (protocol §3): where the harness listens and the key it requires. */
export interface HandshakeOutput {
  port: number;
  apiKey: string;
}

/** Parses a binary `InputConfig`; throws {@link HandshakeFormatError} on malformed bytes. */
export function decodeHandshakeInput(bytes: Uint8Array): HandshakeInput {
  const input: HandshakeInput = { env: {} };
  const reader = new ProtoReader(bytes, "InputConfig", CLIENT_HINT);
  while (!reader.done) {
    const [field, wire] = reader.tag();
    if (field === 1 && wire === WIRE_LEN) input.storageDirectory = reader.string();
    else if (field === 2 && wire === WIRE_VARINT) input.port = reader.varint32();
    else if (field === 3 && wire === WIRE_LEN) input.bindAddress = reader.string();
    else if (field === 4 && wire === WIRE_LEN)
      input.clientInfo = decodeClientInfo(reader.bytes(), input.clientInfo ?? {});
    else if (field === 5 && wire === WIRE_LEN) {
      const [key, value] = decodeMapEntry(reader.bytes());
      input.env[key] = value;
    } else reader.skip(wire);
  }
  return input;
}

/** Binary `OutputConfig{port, api_key}` (both fields have explicit presence: always written). */
export function encodeHandshakeOutput(output: HandshakeOutput): Uint8Array {
  const out = new ProtoWriter();
  out.varintField(1, output.port);
  out.stringField(2, output.apiKey);
  return out.finish();
}

/** Parses a binary `OutputConfig` (absent fields read as 0 and "", as protobuf-es reads them); throws {@link HandshakeFormatError} on malformed bytes. */
export function decodeHandshakeOutput(bytes: Uint8Array): HandshakeOutput {
  const reader = new ProtoReader(bytes, "OutputConfig", HARNESS_HINT);
  let port = 0;
  let apiKey = "";
  while (!reader.done) {
    const [field, wire] = reader.tag();
    if (field === 1 && wire === WIRE_VARINT)
      port = reader.varint32() | 0; // int32
    else if (field === 2 && wire === WIRE_LEN) apiKey = reader.string();
    else reader.skip(wire);
  }
  return { port, apiKey };
}

/**
 * Binary `InputConfig`, fields in number order as protobuf-es writes them: unset optional fields
 * are left out, `env` entries in insertion order.
 */
export function encodeHandshakeInput(input: HandshakeInput): Uint8Array {
  const out = new ProtoWriter();
  if (input.storageDirectory !== undefined) out.stringField(1, input.storageDirectory);
  if (input.port !== undefined) out.varintField(2, input.port);
  if (input.bindAddress !== undefined) out.stringField(3, input.bindAddress);
  if (input.clientInfo !== undefined) {
    const info = new ProtoWriter();
    CLIENT_INFO_FIELDS.forEach((name, field) => {
      const value = name === "" ? undefined : input.clientInfo?.[name];
      if (value !== undefined) info.stringField(field, value);
    });
    out.bytesField(4, info.finish());
  }
  for (const [key, value] of Object.entries(input.env)) {
    const entry = new ProtoWriter();
    entry.stringField(1, key);
    entry.stringField(2, value);
    out.bytesField(5, entry.finish());
  }
  return out.finish();
}

function decodeClientInfo(
  bytes: Uint8Array,
  into: NonNullable<HandshakeInput["clientInfo"]>,
): NonNullable<HandshakeInput["clientInfo"]> {
  const reader = new ProtoReader(bytes, "InputConfig.client_info", CLIENT_HINT);
  while (!reader.done) {
    const [field, wire] = reader.tag();
    const name = CLIENT_INFO_FIELDS[field];
    if (name !== undefined && name !== "" && wire === WIRE_LEN) into[name] = reader.string();
    else reader.skip(wire);
  }
  return into;
}

function decodeMapEntry(bytes: Uint8Array): [string, string] {
  const reader = new ProtoReader(bytes, "InputConfig.env", CLIENT_HINT);
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
  if (!Number.isInteger(value) || value < 0 || value > 0xffffffff)
    throw new RangeError(`cannot encode ${value} as a handshake varint`);
  let rest = value;
  while (rest > 0x7f) {
    out.push((rest & 0x7f) | 0x80);
    rest = Math.floor(rest / 128);
  }
  out.push(rest);
}

/** Builds one message: tags, varints and length-delimited fields. */
class ProtoWriter {
  readonly #parts: number[] = [];
  readonly #chunks: Uint8Array[] = [];

  varintField(field: number, value: number): void {
    pushVarint(this.#parts, (field << 3) | WIRE_VARINT);
    pushVarint(this.#parts, value);
  }

  stringField(field: number, value: string): void {
    this.bytesField(field, utf8Encoder.encode(value));
  }

  bytesField(field: number, value: Uint8Array): void {
    pushVarint(this.#parts, (field << 3) | WIRE_LEN);
    pushVarint(this.#parts, value.length);
    this.#flush();
    this.#chunks.push(value);
  }

  finish(): Uint8Array {
    this.#flush();
    const bytes = new Uint8Array(this.#chunks.reduce((sum, chunk) => sum + chunk.length, 0));
    let offset = 0;
    for (const chunk of this.#chunks) {
      bytes.set(chunk, offset);
      offset += chunk.length;
    }
    return bytes;
  }

  #flush(): void {
    if (this.#parts.length === 0) return;
    this.#chunks.push(Uint8Array.from(this.#parts));
    this.#parts.length = 0;
  }
}

class ProtoReader {
  #offset = 0;
  constructor(
    readonly data: Uint8Array,
    readonly message: string,
    readonly hint: string,
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
      `malformed ${this.message} in the stdio handshake: ${reason} (at byte ${this.#offset}); ${this.hint}`,
    );
  }
}
