import { describe, expect, it } from "vitest";
import { ErrorCode, SdkError } from "../errors.js";
import { createChannelPair, createInMemoryTransport } from "./in-memory.js";

async function drain(frames: AsyncIterable<string>): Promise<{ frames: string[]; error?: unknown }> {
  const out: string[] = [];
  try {
    for await (const frame of frames) out.push(frame);
  } catch (error) {
    return { frames: out, error };
  }
  return { frames: out };
}

describe("in-memory channels", () => {
  it("deliver frames both ways, in order, buffered until read", async () => {
    const [client, server] = createChannelPair();
    client.send("a");
    client.send("b");
    server.send("x");
    await client.close();
    expect(await drain(server.frames())).toEqual({ frames: ["a", "b"] });
    expect(await drain(client.frames())).toEqual({ frames: ["x"] });
    expect(() => client.send("late")).toThrow(expect.objectContaining({ code: ErrorCode.ConnectionClosed }));
    expect(() => server.frames()).toThrow(expect.objectContaining({ code: ErrorCode.FailedPrecondition }));
  });

  it("make the other end throw after its frames when one end drops", async () => {
    const [client, server] = createChannelPair();
    server.send("partial");
    server.drop(new SdkError(ErrorCode.HarnessCrashed, "boom"));
    const result = await drain(client.frames());
    expect(result.frames).toEqual(["partial"]);
    expect(result.error).toMatchObject({ code: ErrorCode.HarnessCrashed, message: "boom" });
    expect(await drain(server.frames())).toEqual({ frames: [] });
    expect(client.closed && server.closed).toBe(true);
  });

  it("hand the server end of each connection to the fake harness; a failing one drops it", async () => {
    const transport = createInMemoryTransport(async (server) => {
      for await (const frame of server.frames()) {
        if (frame === "crash") throw new Error("script bug");
        server.send(`echo:${frame}`);
      }
    });
    const channel = await transport.connect();
    channel.send("hi");
    channel.send("crash");
    const result = await drain(channel.frames());
    expect(result.frames).toEqual(["echo:hi"]);
    expect(result.error).toMatchObject({ code: ErrorCode.HarnessCrashed, message: "script bug" });
    const controller = new AbortController();
    controller.abort();
    await expect(transport.connect({ signal: controller.signal })).rejects.toMatchObject({ code: ErrorCode.Canceled });
  });
});
