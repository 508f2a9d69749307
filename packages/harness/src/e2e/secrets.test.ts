import { randomBytes } from "node:crypto";
import { chmod, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import {
  InputConfigSchema,
  LengthPrefixedReader,
  create,
  decodeOutputConfig,
  encodeInputConfig,
  frameLengthPrefixed,
} from "@antigravity-ts/sdk/wire";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { harnessEnv, killAllHarnesses, spawnHarness, type HarnessProcess } from "@antigravity-ts/test-kit";
import { TestClient, finalSteps, harnessConfig } from "../test-support/ws-client.js";

// Issue 8 items 2 and 10: what a command the model runs can learn about the harness's secrets
// (its environment, its parent's /proc entries, every process of the user), and whether the
// key of a listening harness shows in `ps` for each way of passing it.

const SCRIPT = {
  turns: [
    {
      regex: "^run ([\\s\\S]*)$",
      calls: [{ toolCalls: [{ name: "run_command", args: { CommandLine: "{{match.1}}" } }] }, { text: "done" }],
    },
  ],
};
/** What a hostile command would try first. */
const PROBE =
  "printenv; echo ---parent-environ; tr '\\0' '\\n' < /proc/$PPID/environ; echo ---parent-cmdline; tr '\\0' ' ' < /proc/$PPID/cmdline";

function secret(name: string): string {
  return `${name}-${randomBytes(12).toString("hex")}`;
}

/**
 * Every `/proc/<pid>/{environ,cmdline}` this user can read, concatenated — except the esbuild
 * service that tsx starts inside a harness run from its TypeScript sources (as these tests do)
 * before any harness code runs: it inherits the launch environment; the built harness has none.
 */
async function everyProcessEnvironment(harnessPid: number): Promise<string> {
  const parts: string[] = [];
  for (const entry of await readdir("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await readFile(`/proc/${entry}/stat`, "latin1").catch(() => "");
    const cmdline = await readFile(`/proc/${entry}/cmdline`, "latin1").catch(() => "");
    const parent = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
    if (parent === harnessPid && /\/esbuild\0--service=/.test(cmdline)) continue;
    for (const file of ["environ", "cmdline"])
      parts.push(await readFile(`/proc/${entry}/${file}`, "latin1").catch(() => ""));
  }
  return parts.join("\n");
}

async function runInSession(
  port: number,
  apiKey: string,
  workspace: string,
  command: string,
  config = {},
): Promise<string> {
  const client = await TestClient.connect(port, apiKey);
  await client.init(harnessConfig(workspace, config));
  client.prompt(`run ${command}`);
  const step = finalSteps(await client.turn()).find((s) => s["runCommand"] !== undefined);
  client.close();
  expect(step?.["state"]).toBe("STATE_DONE");
  return step?.["runCommand"]?.["combinedOutput"] as string;
}

const linux = process.platform === "linux";

describe("secrets stay out of commands and out of ps", () => {
  let root: string;
  let workspace: string;
  let scriptFile: string;
  beforeAll(async () => {
    root = await mkdtemp(path.join(tmpdir(), "harness-secrets-"));
    workspace = path.join(root, "ws");
    scriptFile = path.join(root, "script.json");
    await mkdir(workspace);
    await writeFile(scriptFile, JSON.stringify(SCRIPT));
  });
  afterAll(async () => {
    await killAllHarnesses();
    await rm(root, { recursive: true, force: true });
  });

  it.runIf(linux)(
    "listen mode: a command sees only the allow-listed environment, and no process shows the harness key or model keys",
    async () => {
      const secrets = {
        ANTIGRAVITY_API_KEY: secret("harness"),
        GEMINI_API_KEY: secret("gemini"),
        OPENAI_API_KEY: secret("openai"),
        DEPLOY_TOKEN: secret("token"),
        DB_PASSWORD: secret("password"),
      };
      const harness = spawnHarness(["--listen", "127.0.0.1:0", "--script", scriptFile], {
        env: harnessEnv(undefined, { ...secrets, UNLISTED_SETTING: "not-for-commands", LC_MESSAGES: "C", TZ: "UTC" }),
      });
      const port = await listeningPort(harness);
      const output = await runInSession(port, secrets.ANTIGRAVITY_API_KEY, workspace, PROBE);
      const [printenv = "", parent = ""] = output.split("---parent-environ");
      for (const value of Object.values(secrets)) expect(output).not.toContain(value);
      for (const name of Object.keys(secrets)) expect(printenv).not.toContain(`${name}=`);
      expect(printenv).not.toContain("UNLISTED_SETTING");
      expect(printenv).toContain("LC_MESSAGES=C");
      expect(printenv).toContain("TZ=UTC");
      expect(printenv).toContain(`PWD=${workspace}`);
      expect(printenv).toMatch(/^PATH=/m);
      // The command's parent is the harness where the command can see it; in a PID namespace of its
      // own (the default where the machine allows one) it cannot. Either way the harness's own
      // environment block, read from outside, was wiped of the secrets but kept the rest.
      expect(parent).toContain("---parent-cmdline");
      const pid = harness.child.pid as number;
      expect(await readFile(`/proc/${pid}/environ`, "latin1")).toContain("ANTIGRAVITY_MODEL_PROVIDER=scripted");
      expect((await readFile(`/proc/${pid}/cmdline`, "latin1")).replaceAll("\0", " ")).toContain(
        "antigravity-harness --listen",
      );
      // Nothing this user can read names any of the secrets while the harness runs.
      const everything = await everyProcessEnvironment(harness.child.pid as number);
      for (const value of Object.values(secrets)) expect(everything).not.toContain(value);
      expect(harness.stderr()).not.toMatch(/could not wipe/);
    },
  );

  it.runIf(linux)("stdio mode: InputConfig.env reaches commands, except the harness's own credentials", async () => {
    const gemini = secret("gemini");
    const inherited = secret("inherited");
    const harness = spawnHarness([], {
      env: harnessEnv(undefined, {
        ANTIGRAVITY_SCRIPT: scriptFile,
        GEMINI_API_KEY: inherited,
        SERVICE_TOKEN: inherited,
      }),
    });
    const input = create(InputConfigSchema, {
      storageDirectory: path.join(root, "stdio-storage"),
      env: { PROJECT_SETTING: "from-config", GITHUB_TOKEN: "given-on-purpose", GEMINI_API_KEY: gemini },
    });
    harness.child.stdin.write(frameLengthPrefixed(encodeInputConfig(input)));
    const { port, apiKey } = await outputConfig(harness);
    const output = await runInSession(port, apiKey, workspace, PROBE);
    const [printenv = ""] = output.split("---parent-environ");
    expect(printenv).toContain("PROJECT_SETTING=from-config");
    expect(printenv).toContain("GITHUB_TOKEN=given-on-purpose");
    expect(output).not.toContain(gemini);
    expect(output).not.toContain(inherited);
    expect(output).not.toContain(apiKey);
    const everything = await everyProcessEnvironment(harness.child.pid as number);
    expect(everything).not.toContain(inherited);
    harness.child.stdin.end();
    expect(await harness.exited).toEqual({ code: 0, signal: null });
  });

  describe.runIf(linux)("the listen key is not in /proc/<pid>/cmdline or environ, whichever way it is given", () => {
    const forms: [string, (key: string, file: string) => { args: string[]; env: Record<string, string> }][] = [
      ["--api-key KEY", (key) => ({ args: ["--api-key", key], env: {} })],
      ["--api-key=KEY", (key) => ({ args: [`--api-key=${key}`], env: {} })],
      ["--api-key-file FILE", (_key, file) => ({ args: ["--api-key-file", file], env: {} })],
      ["ANTIGRAVITY_API_KEY", (key) => ({ args: [], env: { ANTIGRAVITY_API_KEY: key } })],
    ];
    for (const [name, form] of forms) {
      it(name, async () => {
        const key = secret("listen");
        const file = path.join(root, `key-${randomBytes(4).toString("hex")}`);
        await writeFile(file, `${key}\n`, { mode: 0o600 });
        const { args, env } = form(key, file);
        const harness = spawnHarness(["--listen", "127.0.0.1:0", "--script", scriptFile, ...args], {
          env: harnessEnv(undefined, env),
        });
        const port = await listeningPort(harness);
        const pid = harness.child.pid as number;
        const cmdline = await readFile(`/proc/${pid}/cmdline`, "latin1");
        expect(cmdline).toContain("antigravity-harness --listen");
        expect(cmdline).not.toContain(key);
        expect(await readFile(`/proc/${pid}/environ`, "latin1")).not.toContain(key);
        // The key still works: a session starts with it.
        expect(await runInSession(port, key, workspace, "echo ok")).toBe("ok\n");
        expect(harness.stderr()).not.toContain(key);
      });
    }

    it("refuses an empty key file and warns about one others can read", async () => {
      const empty = path.join(root, "empty-key");
      await writeFile(empty, "\n");
      const refused = spawnHarness(["--listen", "127.0.0.1:0", "--api-key-file", empty]);
      expect((await refused.exited).code).toBe(2);
      expect(refused.stderr()).toContain("the file is empty");
      const open = path.join(root, "open-key");
      await writeFile(open, "a-key-others-can-read\n");
      await chmod(open, 0o644);
      const warned = spawnHarness(["--listen", "127.0.0.1:0", "--api-key-file", open]);
      await warned.waitForStderr("can be read by other users");
    });
  });
});

async function listeningPort(harness: HarnessProcess): Promise<number> {
  const line = await harness.waitForStderr(/listening on ws:\/\/127\.0\.0\.1:\d+\//);
  return Number(/:(\d+)\/$/.exec(line)?.[1]);
}

/** Reads the stdio handshake reply (protocol §3) with the SDK's decoder. */
async function outputConfig(harness: HarnessProcess): Promise<{ port: number; apiKey: string }> {
  const reader = new LengthPrefixedReader();
  return new Promise((resolve, reject) => {
    const onData = (chunk: Buffer): void => {
      const [message] = reader.push(chunk);
      if (message === undefined) return;
      harness.child.stdout.off("data", onData);
      const config = decodeOutputConfig(message);
      resolve({ port: config.port ?? 0, apiKey: config.apiKey ?? "" });
    };
    harness.child.stdout.on("data", onData);
    void harness.exited.then(() => reject(new Error(`harness exited before the handshake:\n${harness.stderr()}`)));
  });
}
