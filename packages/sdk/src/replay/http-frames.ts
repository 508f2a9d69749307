import type { JsonValue } from "./trace-format.js";

// How an HTTP exchange is a connection of a trace (wire "interactions", docs/trace.schema.json):
// the client's one frame is the request, the peer's are the response head, then the body —
// each server-sent event of a `text/event-stream` body (the WHATWG event-stream format), or the
// whole body of any other. Written by recordingFetch, read back by replayFetch.

/** The client's frame: the request. `body` when it is JSON, `bodyText` when it is not. */
export interface RequestFrame {
  [key: string]: JsonValue;
  method: string;
  /** Path and query of the URL (no origin: a replay runs on another port). */
  path: string;
  headers: { [name: string]: string };
}

/** The request as a frame. */
export async function requestFrame(request: Request): Promise<RequestFrame> {
  const url = new URL(request.url);
  const headers: { [name: string]: string } = {};
  for (const [name, value] of request.headers) headers[name] = value;
  const frame: RequestFrame = { method: request.method, path: `${url.pathname}${url.search}`, headers };
  if (request.body !== null) Object.assign(frame, jsonOrText(await request.clone().text(), "body", "bodyText"));
  return frame;
}

/** The peer's first frame: the response's status and content type. */
export function responseHead(response: Response): { [key: string]: JsonValue } {
  const contentType = response.headers.get("content-type");
  return { status: response.status, ...(contentType === null ? {} : { contentType }) };
}

/** Whether a body is a stream of server-sent events. */
export function isEventStream(contentType: string | null | undefined): boolean {
  return /^text\/event-stream\b/i.test(contentType ?? "");
}

/** `{ [jsonKey]: value }` when `text` is JSON, else `{ [textKey]: text }`. */
export function jsonOrText(text: string, jsonKey: string, textKey: string): { [key: string]: JsonValue } {
  try {
    return { [jsonKey]: JSON.parse(text) as JsonValue };
  } catch {
    return { [textKey]: text };
  }
}

/** One server-sent event as a frame: `data` when its data is JSON, `dataText` when not (`[DONE]`); `event`, `id` when given. */
export type EventFrame = { [key: string]: JsonValue };

/**
 * Reads server-sent events from text as it comes (the WHATWG event-stream format: lines end in
 * LF, CRLF or CR; `data:` lines joined by LF; a blank line dispatches; `:` lines are comments).
 */
export class EventStreamReader {
  #buffer = "";
  #data: string[] = [];
  #event: string | undefined;
  #id: string | undefined;

  /** The events that `text` completes; `atEnd` when the body ended (a trailing CR ends its line). */
  push(text: string, atEnd = false): EventFrame[] {
    this.#buffer += text;
    const events: EventFrame[] = [];
    for (;;) {
      const end = /\r\n|\r|\n/.exec(this.#buffer);
      if (end === null) break;
      if (end[0] === "\r" && end.index === this.#buffer.length - 1 && !atEnd) break; // maybe half a CRLF
      const line = this.#buffer.slice(0, end.index);
      this.#buffer = this.#buffer.slice(end.index + end[0].length);
      const event = this.#line(line);
      if (event !== undefined) events.push(event);
    }
    return events;
  }

  #line(line: string): EventFrame | undefined {
    if (line === "") {
      if (this.#data.length === 0) {
        this.#event = undefined;
        this.#id = undefined;
        return undefined;
      }
      const frame: EventFrame = {
        ...(this.#event === undefined ? {} : { event: this.#event }),
        ...(this.#id === undefined ? {} : { id: this.#id }),
        ...jsonOrText(this.#data.join("\n"), "data", "dataText"),
      };
      this.#data = [];
      this.#event = undefined;
      this.#id = undefined; // kept per event: the frame says what this event carried
      return frame;
    }
    if (line.startsWith(":")) return undefined;
    const colon = line.indexOf(":");
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "data") this.#data.push(value);
    else if (field === "event") this.#event = value;
    else if (field === "id") this.#id = value;
    return undefined;
  }
}

/** An event frame as event-stream text, ending with its blank line. */
export function eventText(frame: { readonly [key: string]: JsonValue }): string {
  const data = typeof frame["dataText"] === "string" ? frame["dataText"] : JSON.stringify(frame["data"] ?? null);
  let text = "";
  if (typeof frame["event"] === "string") text += `event: ${frame["event"]}\n`;
  if (typeof frame["id"] === "string") text += `id: ${frame["id"]}\n`;
  for (const line of data.split(/\r\n|\r|\n/)) text += `data: ${line}\n`;
  return `${text}\n`;
}
