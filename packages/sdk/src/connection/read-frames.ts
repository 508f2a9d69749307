import { ErrorCode, SdkError } from "../errors.js";
import type { Channel } from "../transport/transport.js";
import type { OutputEvent } from "../wire/index.js";
import { decodeOutputFrameFully, tryDecodeOutputFrame } from "../wire/frame-codec.js";

/**
 * Decodes every frame of `channel` and hands it to `route`, in order; returns why the channel
 * ended. A frame that does not decode, or that `route` throws on, goes to `protocolError` and
 * never stops the reader.
 */
export async function readFrames(
  channel: Channel,
  route: (event: OutputEvent) => void,
  protocolError: (error: SdkError, frame: string) => void,
): Promise<SdkError> {
  try {
    for await (const frame of channel.frames()) {
      let event: OutputEvent;
      try {
        event = tryDecodeOutputFrame(frame) ?? (await decodeOutputFrameFully(frame));
      } catch (error) {
        protocolError(SdkError.from(error, ErrorCode.ProtocolError), frame);
        continue;
      }
      try {
        route(event);
      } catch (error) {
        protocolError(SdkError.from(error, ErrorCode.ProtocolError), frame);
      }
    }
  } catch (error) {
    return SdkError.from(error, ErrorCode.ConnectionClosed);
  }
  return new SdkError(ErrorCode.ConnectionClosed, "the harness closed the connection");
}
