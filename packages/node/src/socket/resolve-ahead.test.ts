import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import { createServer, connect, type LookupFunction } from "node:net";
import { describe, expect, it } from "vitest";
import { resolveAhead } from "./resolve-ahead.js";

function ask(
  lookup: LookupFunction,
  hostname: string,
  options: Parameters<LookupFunction>[1],
): Promise<{ error: NodeJS.ErrnoException | null; address: string | LookupAddress[]; family?: number | undefined }> {
  return new Promise((resolve) =>
    lookup(hostname, options, (error, address, family) => resolve({ error, address, family })),
  );
}

const dnsAnswer = (hostname: string, options: Parameters<LookupFunction>[1]) =>
  ask(dnsLookup as LookupFunction, hostname, options);

describe("resolveAhead", () => {
  it("answers for its host as dns.lookup does, for every address and for the first, by family", async () => {
    const lookup = resolveAhead("localhost");
    expect(await ask(lookup, "localhost", { all: true })).toEqual(await dnsAnswer("localhost", { all: true }));
    expect(await ask(lookup, "localhost", {})).toEqual(await dnsAnswer("localhost", {}));
    expect(await ask(lookup, "localhost", { family: 4 })).toEqual(await dnsAnswer("localhost", { family: 4 }));
    const v4 = (await ask(lookup, "localhost", { all: true, family: "IPv4" })).address as LookupAddress[];
    expect(v4.every((address) => address.family === 4)).toBe(true);
  });

  it("passes other names, and a host that did not resolve, to dns.lookup", async () => {
    const lookup = resolveAhead("no-such-host.invalid");
    const other = await ask(lookup, "127.0.0.1", { all: true });
    expect(other).toEqual({ error: null, address: [{ address: "127.0.0.1", family: 4 }], family: undefined });
    const failed = await ask(lookup, "no-such-host.invalid", {});
    expect(failed.error?.code).toBe((await dnsAnswer("no-such-host.invalid", {})).error?.code);
  });

  it("is what net.connect uses to reach a server on localhost", async () => {
    const server = createServer((socket) => socket.end("hello"));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as { port: number };
    const asked: string[] = [];
    const ahead = resolveAhead("localhost");
    const lookup: LookupFunction = (hostname, options, callback) => {
      asked.push(hostname);
      ahead(hostname, options, callback);
    };
    try {
      const text = await new Promise<string>((resolve, reject) => {
        let received = "";
        const socket = connect({ host: "localhost", port, lookup, family: 4 });
        socket.on("data", (chunk) => (received += chunk));
        socket.on("end", () => resolve(received));
        socket.on("error", reject);
      });
      expect(text).toBe("hello");
      expect(asked).toEqual(["localhost"]);
    } finally {
      server.close();
    }
  });
});
