import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { Agent, prewarmHarness } from "../index.js";
import { liveChildCount } from "./child-registry.js";
import type { PrewarmedHarness } from "./prewarmed-harness.js";
import { SubprocessTransport, type SubprocessChannel } from "./subprocess-transport.js";
import { fakePath, isAlive, waitUntilGone } from "./testing/process-probe.js";
import { ensureScriptedReferenceHarness } from "@antigravity-ts/test-kit";

const tsxLoader = createRequire(import.meta.url).resolve("tsx");
const prewarmed: PrewarmedHarness[] = [];
const opened: SubprocessChannel[] = [];

let harnessPath = "";
beforeAll(async () => {
  harnessPath = await ensureScriptedReferenceHarness();
}, 300_000);

afterEach(async () => {
  await Promise.all(opened.splice(0).map((channel) => channel.close()));
  await Promise.all(prewarmed.splice(0).map((harness) => harness.dispose()));
  expect(liveChildCount()).toBe(0);
});

async function prewarmFake(): Promise<PrewarmedHarness> {
  const harness = await new SubprocessTransport({ harnessPath: fakePath("fake-harness.mjs") }).prewarm({
    timeoutMs: 20_000,
  });
  prewarmed.push(harness);
  return harness;
}

async function roundTrip(channel: SubprocessChannel, frame: string): Promise<string> {
  channel.send(frame);
  for await (const reply of channel.frames()) return reply;
  throw new Error("channel ended without a reply");
}

describe("prewarm", () => {
  it("prewarmHarness() starts the harness before start(), which adopts it and runs a turn", async () => {
    const harness = await prewarmHarness({ harnessPath, timeoutMs: 30_000 });
    prewarmed.push(harness);
    expect(harness.isWaiting).toBe(true);
    expect(isAlive(harness.pid)).toBe(true);
    const agent = await Agent.builder().transport(harness).allowAll().build().start({ timeoutMs: 30_000 });
    try {
      expect(harness.isWaiting).toBe(false);
      expect(liveChildCount()).toBe(1);
      const response = await agent.chatToCompletion("Hello there");
      expect(response.text).toContain("scripted demo model");
    } finally {
      await agent.stop();
    }
    expect(await waitUntilGone(harness.pid)).toBe(true);
  });

  it("the first connect() adopts the prewarmed process; later ones start fresh harnesses", async () => {
    const harness = await prewarmFake();
    const first = await harness.connect({ timeoutMs: 20_000 });
    opened.push(first);
    expect(first.pid).toBe(harness.pid);
    expect(await roundTrip(first, "ping")).toBe("ping");
    const second = await harness.connect({ timeoutMs: 20_000 });
    opened.push(second);
    expect(second.pid).not.toBe(harness.pid);
    expect(await roundTrip(second, "pong")).toBe("pong");
  });

  it("runs a JavaScript harness with no arguments and no node flags", async () => {
    const harness = await prewarmFake();
    const channel = await harness.connect({ timeoutMs: 20_000 });
    opened.push(channel);
    expect(JSON.parse(await roundTrip(channel, "argv"))).toEqual({ execArgv: [], args: [] });
  });

  it("dispose() kills a harness nobody adopted", async () => {
    const harness = await prewarmFake();
    await harness.dispose();
    expect(harness.isWaiting).toBe(false);
    expect(await harness.exited).toMatchObject({ signal: "SIGKILL" });
    expect(isAlive(harness.pid)).toBe(false);
    await harness.dispose(); // idempotent
  });

  it("a prewarmed harness that died before start() is replaced by a fresh one", async () => {
    const harness = await prewarmFake();
    process.kill(harness.pid, "SIGKILL");
    await harness.exited;
    const channel = await harness.connect({ timeoutMs: 20_000 });
    opened.push(channel);
    expect(channel.pid).not.toBe(harness.pid);
    expect(await roundTrip(channel, "ping")).toBe("ping");
  });

  it("does not keep its parent alive, and does not outlive it", async () => {
    const parent = spawn(
      process.execPath,
      ["--conditions=antigravity-source", "--import", tsxLoader, fakePath("prewarm-parent.mjs")],
      { stdio: ["ignore", "pipe", "pipe"] },
    );
    let out = "";
    let err = "";
    parent.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
    parent.stderr.on("data", (chunk: Buffer) => (err += chunk.toString()));
    const bound = setTimeout(() => parent.kill("SIGKILL"), 20_000);
    const exit = await new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      parent.once("exit", (code, signal) => resolve({ code, signal })),
    );
    clearTimeout(bound);
    expect({ exit, err }).toEqual({ exit: { code: 0, signal: null }, err: "" });
    const pid = Number(out.trim());
    expect(pid).toBeGreaterThan(0);
    expect(await waitUntilGone(pid)).toBe(true);
  });
});
