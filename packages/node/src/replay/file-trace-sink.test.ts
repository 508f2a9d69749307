import { mkdtemp, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ErrorCode, createInMemoryTransport } from "@antigravity-ts/sdk";
import { fileTraceSink, readTraceFile, recordingTransport } from "./index.js";

let scratch = "";
beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), "antigravity-trace-file-"));
});
afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

describe("fileTraceSink", () => {
  it("streams a trace to a file only its owner can read, which readTraceFile parses back", async () => {
    const file = join(scratch, "echo.ndjson");
    const transport = recordingTransport(
      createInMemoryTransport(async (server) => {
        for await (const frame of server.frames()) server.send(frame);
      }),
      fileTraceSink(file),
    );
    const channel = await transport.connect();
    channel.send('{"userInput":{"parts":[{"text":"ping"}]}}');
    const frames = channel.frames()[Symbol.asyncIterator]();
    expect((await frames.next()).value).toBe('{"userInput":{"parts":[{"text":"ping"}]}}');
    await channel.close();
    await transport.close();

    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect((await readFile(file, "utf8")).endsWith("\n")).toBe(true);
    const trace = await readTraceFile(file);
    expect(trace.events.map((e) => (e.kind === "frame" ? e.from : e.kind))).toEqual([
      "open",
      "client",
      "peer",
      "close",
    ]);
  });

  it("says which file it cannot write or read", async () => {
    const missing = join(scratch, "no-such-folder", "t.ndjson");
    const transport = recordingTransport(
      createInMemoryTransport(() => undefined),
      fileTraceSink(missing),
    );
    await expect(transport.close()).rejects.toMatchObject({
      code: ErrorCode.Unavailable,
      message: expect.stringContaining(`cannot write the trace ${missing}`),
    });
    await expect(readTraceFile(missing)).rejects.toMatchObject({
      code: ErrorCode.NotFound,
      message: expect.stringContaining(`cannot read the trace ${missing}`),
    });
  });
});
