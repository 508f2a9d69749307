import { SdkError } from "../errors.js";
import type { ChatEvent } from "./chat-events.js";

/**
 * The bytes of a stream of {@link ChatEvent}s as server-sent events (UTF-8, the
 * `text/event-stream` format of the HTML standard), for a Worker or any `fetch` handler to
 * return. One message per event:
 *
 * ```text
 * id: 3
 * event: text
 * data: {"type":"text","stepIndex":2,"text":"Hel"}
 * ```
 *
 * `id` counts events from 0; `event` is the event's `type`; `data` is the event as one line of
 * JSON. The stream ends after `turnComplete`. If the turn fails or is cancelled, the last message
 * is `event: error` with `data: {"type":"error","code":"Canceled","message":"…"}` (the
 * `SdkError`'s code and message). Cancelling the byte stream (the client went away) calls
 * `onCancel`.
 *
 * @example
 * return new Response(conversation.chat(prompt).toReadableStream(), { headers: { "content-type": "text/event-stream" } });
 */
export function serverSentEvents(
  events: AsyncIterator<ChatEvent, undefined>,
  onCancel: () => void,
): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let id = 0;
  const message = (type: string, data: unknown): Uint8Array =>
    encoder.encode(`id: ${id++}\nevent: ${type}\ndata: ${JSON.stringify(data)}\n\n`);
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const result = await events.next();
        if (result.done === true) controller.close();
        else controller.enqueue(message(result.value.type, result.value));
      } catch (error) {
        const failure = SdkError.from(error);
        controller.enqueue(message("error", { type: "error", code: failure.code, message: failure.message }));
        controller.close();
      }
    },
    async cancel() {
      await events.return?.();
      onCancel();
    },
  });
}
