import { fromJson, toJson, type DescMessage, type JsonValue, type MessageShape } from "@bufbuild/protobuf";
import { ErrorCode, SdkError } from "../errors.js";
import { readJsonFast } from "./json-reader.js";
import { errorText } from "../error-text.js";
import { definedProperties } from "../defined-properties.js";

/**
 * Parses one text frame into a message, tolerantly (protocol §4.1): camelCase or snake_case names,
 * enum names or numbers, int64 as string or number, unknown fields and unknown enum names ignored.
 * Anything else wrong throws `SdkError` `ProtocolError` naming the message and the problem.
 */
export function decodeJsonFrame<Desc extends DescMessage>(schema: Desc, frame: string): MessageShape<Desc> {
  let json: unknown;
  try {
    json = JSON.parse(frame);
  } catch (cause) {
    throw protocolError(schema, `frame is not JSON (${preview(frame)})`, cause);
  }
  if (typeof json !== "object" || json === null || Array.isArray(json)) {
    throw protocolError(schema, `frame is not a JSON object (${preview(frame)})`);
  }
  // The fast path decides the common frames; whatever it is unsure of goes to fromJson (§4.1).
  const fast = readJsonFast(schema, json);
  if (fast !== undefined) return fast;
  try {
    return fromJson(schema, json as JsonValue, { ignoreUnknownFields: true });
  } catch (cause) {
    throw protocolError(schema, errorText(cause), cause);
  }
}

/**
 * Renders a message as one text frame (protocol §4.1): lowerCamelCase names, enum names,
 * int64 as decimal strings; set fields are emitted even at their zero value (explicit presence).
 */
export function encodeJsonFrame<Desc extends DescMessage>(schema: Desc, message: MessageShape<Desc>): string {
  return JSON.stringify(toJson(schema, message));
}

function protocolError(schema: DescMessage, problem: string, cause?: unknown): SdkError {
  return new SdkError(
    ErrorCode.ProtocolError,
    `malformed ${schema.name} frame: ${problem}`,
    definedProperties({ cause }),
  );
}

function preview(frame: string): string {
  return frame.length > 80 ? `${JSON.stringify(frame.slice(0, 80))}…` : JSON.stringify(frame);
}
