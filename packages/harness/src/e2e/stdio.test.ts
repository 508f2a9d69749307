import { mkdir, mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { request } from "node:http";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  harnessEnv,
  killAllHarnesses,
  pidOfArgv,
  processAlive,
  spawnHarness,
  type HarnessProcess,
} from "@antigravity-ts/test-kit";
import { TestClient, harnessConfig, steps } from "../test-support/ws-client.js";

// The stdio mode, driven with raw bytes exactly as protocol §3 describes: no SDK code involved.

/** §3 worked example: InputConfig{storage_directory:"/tmp/s", client_info:{language:"typescript", version:"0.1.0"}}. */
const SPEC_INPUT_CONFIG = "1d000000" + "0a062f746d702f73" + "22130a0a74797065736372697074" + "1205302e312e30";

function varint(value: number): number[] {
  const bytes: number[] = [];
  do {
    let byte = value & 0x7f;
    value >>>= 7;
    if (value !== 0) byte |= 0x80;
    bytes.push(byte);
  } while (value !== 0);
  return bytes;
}

function lengthPrefixed(body: number[]): Buffer {
  const prefix = Buffer.alloc(4);
  prefix.writeUInt32LE(body.length);
  return Buffer.concat([prefix, Buffer.from(body)]);
}

/** OutputConfig{port, api_key} by hand: field 1 varint, field 2 length-delimited (§3). */
function outputConfigBytes(port: number, apiKey: string): Buffer {
  const key = [...Buffer.from(apiKey)];
  return lengthPrefixed([0x08, ...varint(port), 0x12, ...varint(key.length), ...key]);
}

/** InputConfig{storage_directory} by hand (field 1, length-delimited). */
function inputConfigBytes(storageDirectory: string): Buffer {
  const dir = [...Buffer.from(storageDirectory)];
  return lengthPrefixed([0x0a, ...varint(dir.length), ...dir]);
}

/** Reads the OutputConfig reply: the raw bytes plus port and key decoded by hand. */
function readOutputConfig(harness: HarnessProcess): Promise<{ raw: Buffer; port: number; apiKey: string }> {
  return new Promise((resolve, reject) => {
    let buffer = Buffer.alloc(0);
    const onData = (chunk: Buffer): void => {
      buffer = Buffer.concat([buffer, chunk]);
      if (buffer.length < 4 || buffer.length < 4 + buffer.readUInt32LE(0)) return;
      harness.child.stdout.off("data", onData);
      const body = buffer.subarray(4, 4 + buffer.readUInt32LE(0));
      let offset = 0;
      const readVarint = (): number => {
        let result = 0;
        for (let shift = 0; ; shift += 7) {
          const byte = body[offset++] as number;
          result |= (byte & 0x7f) << shift;
          if ((byte & 0x80) === 0) return result;
        }
      };
      let port = -1;
      let apiKey = "";
      while (offset < body.length) {
        const tag = readVarint();
        if (tag === 0x08) port = readVarint();
        else if (tag === 0x12) {
          const length = readVarint();
          apiKey = body.subarray(offset, offset + length).toString("utf8");
          offset += length;
        } else return reject(new Error(`unexpected tag ${tag} in OutputConfig ${body.toString("hex")}`));
      }
      resolve({ raw: buffer, port, apiKey });
    };
    harness.child.stdout.on("data", onData);
    void harness.exited.then(() =>
      reject(new Error(`harness exited before the handshake reply:\n${harness.stderr()}`)),
    );
  });
}

function upgradeStatus(
  port: number,
  headers: Record<string, string>,
  urlPath = "/",
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({
      host: "127.0.0.1",
      port,
      path: urlPath,
      headers: {
        connection: "Upgrade",
        upgrade: "websocket",
        "sec-websocket-version": "13",
        "sec-websocket-key": "dGhlIHNhbXBsZSBub25jZQ==",
        ...headers,
      },
    });
    req.once("upgrade", (response, socket) => {
      socket.destroy();
      resolve({ status: response.statusCode ?? 0, body: "" });
    });
    req.once("response", (response) => {
      let body = "";
      response.on("data", (chunk: Buffer) => (body += chunk.toString()));
      response.on("end", () => resolve({ status: response.statusCode ?? 0, body }));
    });
    req.once("error", reject);
    req.end();
  });
}

describe("stdio mode (protocol §2.3, §3)", () => {
  let root: string;
  beforeAll(async () => {
    root = await mkdtemp(path.join(tmpdir(), "harness-stdio-"));
  });
  afterAll(async () => {
    await killAllHarnesses();
    await rm(root, { recursive: true, force: true });
  });

  it("answers the §3 example InputConfig with a u32-LE length-prefixed OutputConfig{port, apiKey} and refuses upgrades without that key", async () => {
    // The hand encoder reproduces §3's OutputConfig example byte for byte.
    expect(outputConfigBytes(54321, "k3y").toString("hex")).toBe("09000000" + "08b1a803" + "12036b3379");
    const harness = spawnHarness([]);
    harness.child.stdin.write(Buffer.from(SPEC_INPUT_CONFIG, "hex"));
    const reply = await readOutputConfig(harness);
    expect(reply.port).toBeGreaterThan(0);
    expect(reply.apiKey).toMatch(/^[A-Za-z0-9_-]{32,}$/);
    expect(reply.raw.equals(outputConfigBytes(reply.port, reply.apiKey))).toBe(true);

    expect(await upgradeStatus(reply.port, {})).toEqual({ status: 401, body: "unauthorized" });
    expect(await upgradeStatus(reply.port, { "x-goog-api-key": `${reply.apiKey}x` })).toEqual({
      status: 401,
      body: "unauthorized",
    });
    expect(await upgradeStatus(reply.port, { "x-goog-api-key": reply.apiKey.slice(1) })).toEqual({
      status: 401,
      body: "unauthorized",
    });
    expect((await upgradeStatus(reply.port, { "x-goog-api-key": reply.apiKey }, "/other")).status).toBe(404);
    expect(await upgradeStatus(reply.port, { "x-goog-api-key": reply.apiKey }, "//[")).toEqual({
      status: 400,
      body: "bad request target",
    });
    expect((await upgradeStatus(reply.port, { "x-goog-api-key": reply.apiKey })).status).toBe(101);
    // Both loopback names work (clients try localhost, then 127.0.0.1, §4).
    const client = await TestClient.connect(reply.port, reply.apiKey, "localhost");
    client.close();
    await client.closed;
    // "localhost" is both loopbacks: ::1 too, where this machine has it (server.ts, compile-ipv6-check.ts).
    if (await hasIpv6Loopback()) {
      const v6 = await TestClient.connect(reply.port, reply.apiKey, "[::1]");
      v6.close();
      await v6.closed;
    }
    expect(harness.stderr()).not.toContain(reply.apiKey);

    harness.child.stdin.end();
    expect(await harness.exited).toEqual({ code: 0, signal: null });
    expect(harness.stderr()).toContain("Stdin closed, cleaning up...");
  });

  it("exits cleanly when stdin closes mid-command, leaving no orphan process", async () => {
    const workspace = path.join(root, "ws");
    const storage = path.join(root, "storage");
    const script = path.join(root, "script.json");
    const sleepMarker = `60.${process.pid}`;
    await mkdir(workspace, { recursive: true });
    await writeFile(
      script,
      JSON.stringify({
        turns: [
          {
            match: "sleep",
            calls: [
              {
                text: "sleeping",
                toolCalls: [{ name: "run_command", args: { CommandLine: `echo started; exec sleep ${sleepMarker}` } }],
              },
            ],
          },
        ],
      }),
    );
    const harness = spawnHarness([], { env: harnessEnv(undefined, { ANTIGRAVITY_SCRIPT: script }) });
    harness.child.stdin.write(inputConfigBytes(storage));
    const { port, apiKey } = await readOutputConfig(harness);
    const client = await TestClient.connect(port, apiKey);
    await client.init(harnessConfig(workspace));
    client.prompt("please sleep");
    await client.next(
      (f) => (f["stepUpdate"]?.runCommand?.combinedOutput ?? "").includes("started"),
      "run_command's output",
    );
    // Found by its argv: the command runs in a PID namespace of its own, where `$$` is 1.
    const commandPid = await pidOfArgv(["sleep", sleepMarker]);

    harness.child.stdin.end();
    expect(await harness.exited).toEqual({ code: 0, signal: null });
    expect(harness.stderr()).toContain("Stdin closed, cleaning up...");
    expect(!processAlive(harness.child.pid as number)).toBe(true);
    expect(!processAlive(commandPid)).toBe(true);
    expect((await client.closed).code).toBe(1001);
    expect(steps(client.frames).some((s) => s.runCommand !== undefined)).toBe(true);
  });

  it("rehearses a session while it waits for its first client without touching the storage directory or the log", async () => {
    const workspace = path.join(root, "rehearsal-ws");
    const storage = path.join(root, "rehearsal-storage");
    await mkdir(workspace, { recursive: true });
    const harness = spawnHarness([], { cwd: workspace });
    harness.child.stdin.write(inputConfigBytes(storage));
    const { port, apiKey } = await readOutputConfig(harness);
    await new Promise((resolve) => setTimeout(resolve, 500)); // past warm-up.ts's rehearsal delay, with time to finish
    expect(await readdir(storage).catch((error: NodeJS.ErrnoException) => error.code)).toBe("ENOENT");
    expect(harness.stderr().trim().split("\n")).toEqual([
      expect.stringMatching(/^listening on ws:\/\/localhost:\d+\/ \(stdio mode/),
    ]);

    const client = await TestClient.connect(port, apiKey);
    await client.init(harnessConfig(workspace));
    expect(await readdir(storage)).toHaveLength(1);
    expect(harness.stderr()).toContain("new session");
    client.close();
    await client.closed;
    harness.child.stdin.end();
    expect(await harness.exited).toEqual({ code: 0, signal: null });
  });

  it("fails with a clear message when stdin closes before a complete InputConfig", async () => {
    const harness = spawnHarness([]);
    harness.child.stdin.end(Buffer.from([0x10, 0, 0, 0, 0x0a]));
    expect((await harness.exited).code).toBe(1);
    expect(harness.stderr()).toContain("stdin closed before a complete InputConfig arrived");
  });

  it("refuses a handshake frame that announces more than 16 MiB at once, without waiting for it", async () => {
    const harness = spawnHarness([]);
    harness.child.stdin.write(Buffer.from([0xff, 0xff, 0xff, 0xff, 0x0a])); // u32-LE 4 GiB, stdin left open
    expect((await harness.exited).code).toBe(1);
    expect(harness.stderr()).toContain(
      "handshake frame announces 4294967295 bytes (limit 16777216); the peer is not speaking the localharness stdio protocol",
    );
  });
});

/** Whether this machine can listen on ::1. */
function hasIpv6Loopback(): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once("error", () => resolve(false));
    server.listen(0, "::1", () => server.close(() => resolve(true)));
  });
}
