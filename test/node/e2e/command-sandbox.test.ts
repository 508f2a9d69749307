import { spawnSync } from "node:child_process";
import { mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Agent, BuiltinTool, WebSocketTransport, type StartedAgent } from "@antigravity-ts/node";
import { harnessEnv, killAllHarnesses, startListeningHarness, type ListeningHarness } from "@antigravity-ts/test-kit";

// Security issue item 3: `capabilities.runCommand.enableSandbox` (upstream RunCommandConfig
// enable_sandbox) is a real OS sandbox where the machine allows one (bubblewrap, installed by
// scripts/ensure-bubblewrap.mjs): the workspace read-write, the rest read-only, a private /tmp,
// no key file and no session storage, optionally no network, and nothing outlives the command.
// The init response's sandbox_status says so; where bubblewrap is missing it says why, the
// harness and the SDK warn in upstream's words, and commands run unsandboxed as upstream's do.

const SCRIPT = {
  turns: [
    {
      regex: "^run ([\\s\\S]*)$",
      calls: [{ toolCalls: [{ name: "run_command", args: { CommandLine: "{{match.1}}" } }] }, { text: "{{result}}" }],
    },
  ],
};
const KEY = "sandbox-harness-key-0123456789";
const bwrap = spawnSync("bwrap", ["--ro-bind", "/", "/", "--unshare-pid", "/bin/true"]);
const sandboxable = process.platform === "linux" && bwrap.status === 0;
const why = sandboxable
  ? ""
  : `bubblewrap cannot run here (${bwrap.error?.message ?? bwrap.stderr?.toString().trim() ?? `exit ${bwrap.status}`}); run scripts/ensure-bubblewrap.mjs`;

let root = "";
let workspace = "";
let storage = "";
let scriptFile = "";

beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), "antigravity-sandbox-"));
  workspace = path.join(root, "ws");
  storage = path.join(root, "sessions");
  scriptFile = path.join(root, "script.json");
  await mkdir(workspace);
  await writeFile(scriptFile, JSON.stringify(SCRIPT));
  await writeFile(path.join(root, "outside.txt"), "outside-secret-7f3a\n");
});

afterAll(async () => {
  await killAllHarnesses();
  await rm(root, { recursive: true, force: true });
});

async function harness(
  env: Record<string, string> = {},
  keyFile = path.join(root, "harness.key"),
): Promise<ListeningHarness> {
  return startListeningHarness({
    apiKey: KEY,
    apiKeyFile: keyFile,
    workspace,
    args: ["--storage", storage, "--script", scriptFile],
    env: harnessEnv(undefined, env),
  });
}

async function agent(h: ListeningHarness, warnings: string[] = [], enableSandbox = true): Promise<StartedAgent> {
  return Agent.builder()
    .transport(new WebSocketTransport({ host: "127.0.0.1", port: h.port, apiKey: h.apiKey }))
    .workspaces(workspace)
    .enabledTools(BuiltinTool.RunCommand)
    .capabilities({ runCommand: { enableSandbox } })
    .logger({ debug: () => {}, info: () => {}, warn: (line: string) => warnings.push(line), error: () => {} })
    .allowAll()
    .build()
    .start({ timeoutMs: 30_000 });
}

/** Runs `command` in a turn of `started` and returns what the model was told of it. */
async function run(started: StartedAgent, command: string): Promise<string> {
  return (await started.chatToCompletion(`run ${command}`)).text;
}

describe.runIf(sandboxable)("run_command in the sandbox (bubblewrap)", () => {
  let h: ListeningHarness;
  let started: StartedAgent;
  let listener: Server;
  let port = 0;

  beforeAll(async () => {
    h = await harness();
    started = await agent(h);
    listener = createServer().listen(0, "127.0.0.1");
    await new Promise((resolve) => listener.once("listening", resolve));
    port = (listener.address() as { port: number }).port;
  });

  afterAll(async () => {
    await started?.stop();
    listener?.close();
  });

  it("reports the sandbox available", () => {
    expect(started.sandboxStatus).toEqual({ available: true, unavailableReason: "" });
  });

  it("writes the workspace, and nothing else of the file system", async () => {
    const out = await run(
      started,
      `echo inside > made.txt && cat made.txt; touch ${root}/escaped.txt; touch /etc/antigravity-sandbox-test; echo done`,
    );
    expect(out).toContain("inside");
    expect(out).toContain("Read-only file system");
    expect(await readFile(path.join(workspace, "made.txt"), "utf8")).toBe("inside\n");
    await expect(readFile(path.join(root, "escaped.txt"))).rejects.toThrow();
    await expect(readFile("/etc/antigravity-sandbox-test")).rejects.toThrow();
  });

  it("has a /tmp of its own", async () => {
    const marker = `antigravity-sandbox-tmp-${process.pid}`;
    const out = await run(
      started,
      `echo private > /tmp/${marker} && cat /tmp/${marker}; cat ${root}/outside.txt; ls /tmp`,
    );
    expect(out).toContain("private");
    expect(out).not.toContain("outside-secret-7f3a");
    await expect(readFile(path.join(tmpdir(), marker))).rejects.toThrow();
  });

  it("sees neither the harness's key file nor the session storage, nor the harness's process", async () => {
    const stored = await readdir(storage);
    expect(stored.length).toBeGreaterThan(0);
    const pid = h.child.pid as number;
    // A link in the workspace to the key file leads to the hidden file, not to the key.
    await symlink(path.join(root, "harness.key"), path.join(workspace, "key-link"));
    const out = await run(
      started,
      `cat key-link; cat ${root}/harness.key; ls -a ${storage}; cat ${storage}/*; cat /proc/${pid}/cmdline /proc/${pid}/environ; echo "pid $$"; echo ran`,
    );
    expect(out).toContain("ran");
    expect(out).not.toContain(KEY);
    for (const name of stored) expect(out).not.toContain(name);
    expect(out).not.toContain("--listen");
    expect(out).toMatch(/pid [0-9]\b/); // its own PID namespace
  });

  it("keeps the network by default: the host's loopback listener is in its view", async () => {
    const hex = port.toString(16).toUpperCase().padStart(4, "0");
    expect(await run(started, "cat /proc/net/tcp")).toContain(`:${hex}`);
  });

  it("has no network with ANTIGRAVITY_HARNESS_SANDBOX_NETWORK=0", async () => {
    const offline = await harness({ ANTIGRAVITY_HARNESS_SANDBOX_NETWORK: "0" }, path.join(root, "offline.key"));
    const isolated = await agent(offline);
    try {
      const hex = port.toString(16).toUpperCase().padStart(4, "0");
      const out = await run(isolated, "cat /proc/net/tcp; echo ran");
      expect(out).toContain("ran");
      expect(out).not.toContain(`:${hex}`);
    } finally {
      await isolated.stop();
      await offline.stop();
    }
  });

  it("leaves nothing running after the command", async () => {
    const m = `${4000 + (process.pid % 1000)}.5`;
    await run(started, `(setsid sleep ${m} &); sleep 0.1; echo started`);
    const alive = (await readdir("/proc")).filter((p) => /^\d+$/.test(p));
    const left: string[] = [];
    for (const p of alive)
      if ((await readFile(`/proc/${p}/cmdline`, "latin1").catch(() => "")) === `sleep\0${m}\0`) left.push(p);
    expect(left).toEqual([]);
  });
});

describe("run_command where the sandbox cannot be had", () => {
  it(`says so in sandbox_status, warns in upstream's words, and runs the command unsandboxed${sandboxable ? "" : ` (${why})`}`, async () => {
    // No bubblewrap on PATH: the harness cannot enforce the sandbox.
    const h = await harness({ PATH: "/nonexistent" }, path.join(root, "nobwrap.key"));
    const warnings: string[] = [];
    const started = await agent(h, warnings);
    try {
      expect(started.sandboxStatus?.available).toBe(false);
      expect(started.sandboxStatus?.unavailableReason).toContain("bubblewrap");
      expect(warnings.join("\n")).toContain(
        "enable_sandbox=True but the OS sandbox is unavailable in this harness environment",
      );
      expect(h.stderr()).toContain("run_command will execute UNSANDBOXED");
      expect(await run(started, "echo unsandboxed > plain.txt; echo ok")).toContain("ok");
      expect(await readFile(path.join(workspace, "plain.txt"), "utf8")).toBe("unsandboxed\n");
    } finally {
      await started.stop();
      await h.stop();
    }
  });

  it("does not warn when the sandbox was not asked for", async () => {
    const h = await harness({ PATH: "/nonexistent" }, path.join(root, "quiet.key"));
    const warnings: string[] = [];
    const started = await agent(h, warnings, false);
    try {
      expect(started.sandboxStatus?.available).toBe(false);
      expect(warnings).toEqual([]);
    } finally {
      await started.stop();
      await h.stop();
    }
  });
});
