import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  decodeHandshakeOutput,
  encodeHandshakeInput,
  frameLengthPrefixed,
  LengthPrefixedReader,
} from "@antigravity-ts/sdk/internal";
import { harnessEnv, spawnHarness } from "@antigravity-ts/test-kit";
import { useHarnessFixture } from "../test-support/fixture.js";
import { finalSteps, harnessConfig, TestClient, type Frame } from "../test-support/ws-client.js";

// Both wire eras against the reference harness, with frames spelled exactly as each era's
// Python client writes them (json_format.MessageToJson: camelCase names, enum names):
//   0.1.14 (lovicho/antigravity-sdk-python, proto @774cb8d): CompactionConfig{checkpointIntervalTokens},
//     CustomSystemInstructions.SystemInstructionTemplate{templateName}, PreToolResult{modifiedArgumentsJson}.
//   0.1.19 (Stars1233/antigravity-sdk-python localharness.proto @257f843a): CompactionConfig{tokenThreshold},
//     SystemInstructionTemplate{name}, Part.builtinSection, SkillsConfig, PreToolResult{modifiedArgs: genai.Struct}.
// A 0.1.14 client's json_format.Parse refuses unknown names, so it must not be sent the newer
// fields (sandboxStatus here): the harness learns the era from the first frame's spelling, or
// in stdio mode from the handshake's ClientInfo.

const SCRIPT = {
  turns: [
    {
      match: "list",
      calls: [
        { toolCalls: [{ name: "list_directory", args: { directory_path: "." } }] },
        { text: "listed {{result.directory}}" },
      ],
    },
    { match: "add", calls: [{ toolCalls: [{ name: "add", args: { a: 1, b: 2 } }] }, { text: "{{result}}" }] },
  ],
};
const ADD_TOOL = {
  name: "add",
  description: "Add",
  parametersJsonSchema: JSON.stringify({
    type: "object",
    properties: { a: { type: "integer" }, b: { type: "integer" } },
  }),
};

/** Runs "add", allows it at the PRE_TOOL hook, answers the client tool call and returns its `toolCall` frame. */
async function addThroughClientTool(client: TestClient): Promise<Frame> {
  client.prompt("add");
  const preTool = (await client.next((f) => f["callHookRequest"]?.type === "LIFECYCLE_HOOK_PRE_TOOL"))[
    "callHookRequest"
  ] as Frame;
  client.send({ callHookResponse: { requestId: preTool["requestId"], preToolResult: { decision: "ALLOW" } } });
  const toolCall = (await client.next((f) => f["toolCall"] !== undefined))["toolCall"] as Frame;
  client.send({ toolResponse: { id: toolCall["id"], responseJson: '{"sum": 3}' } });
  await client.turn();
  return toolCall;
}
const isHook =
  (type: string) =>
  (frame: Frame): boolean =>
    frame["callHookRequest"]?.type === `LIFECYCLE_HOOK_${type}`;

const ERA_0_1_14 = {
  compactionThreshold: 50_000,
  compactionConfig: { checkpointIntervalTokens: 50_000 },
  systemInstructions: {
    custom: {
      part: [
        { text: "You are terse." },
        { template: { templateName: "identity", args: [{ name: "who", value: "tester" }] } },
      ],
    },
  },
  enabledHooks: ["LIFECYCLE_HOOK_PRE_TOOL"],
  tools: [ADD_TOOL],
};
const ERA_0_1_19 = {
  compactionThreshold: 50_000,
  compactionConfig: { tokenThreshold: 50_000 },
  systemInstructions: {
    custom: {
      part: [
        { text: "You are terse." },
        { template: { name: "identity", args: [{ name: "who", value: "tester" }] } },
        { builtinSection: "tools" },
      ],
    },
  },
  skillsConfig: { enabled: false },
  enabledHooks: ["LIFECYCLE_HOOK_PRE_TOOL"],
  tools: [ADD_TOOL],
};

describe("wire eras: the reference harness reads both", () => {
  const fixture = useHarnessFixture({
    name: "wire-eras",
    script: SCRIPT,
    prepare: async (_root, workspace) => {
      await mkdir(path.join(workspace, "sub"));
      await writeFile(path.join(workspace, "sub", "inner.txt"), "x");
    },
  });

  /** Runs "list" with a PRE_TOOL hook that points the call at `sub`, answered with `preToolResult`. */
  async function listThroughHook(client: TestClient, preToolResult: Frame): Promise<string> {
    client.prompt("list");
    const preTool = (await client.next(isHook("PRE_TOOL")))["callHookRequest"] as Frame;
    client.send({ callHookResponse: { requestId: preTool["requestId"], preToolResult } });
    await client.turn();
    return finalSteps(client.frames).find((s) => s["listDirectory"])?.["listDirectory"].directoryPath as string;
  }

  it("takes a 0.1.14 client's frames and writes it nothing its schema lacks", async () => {
    const client = await fixture.open();
    const response = await client.init(harnessConfig(fixture.workspace, ERA_0_1_14));
    expect(response["cascadeId"]).toEqual(expect.any(String));
    expect(response).not.toHaveProperty("sandboxStatus");
    const listed = await listThroughHook(client, {
      decision: "ALLOW",
      modifiedArgumentsJson: '{"directory_path": "sub"}',
    });
    expect(listed).toMatch(/\/sub$/);
    const toolCall = await addThroughClientTool(client);
    expect(toolCall).toMatchObject({ name: "add" });
    expect(toolCall).not.toHaveProperty("trajectoryId");
    client.close();
  });

  it("takes a 0.1.19 client's frames, with the Struct modifiedArgs, and tells it the sandbox status", async () => {
    const client = await fixture.open();
    const response = await client.init(harnessConfig(fixture.workspace, ERA_0_1_19));
    expect(response["sandboxStatus"]).toMatchObject({ available: expect.any(Boolean) });
    const modifiedArgs = { fields: [{ name: "directory_path", value: { stringValue: "sub" } }] };
    const listed = await listThroughHook(client, { decision: "ALLOW", modifiedArgs });
    expect(listed).toMatch(/\/sub$/);
    expect(await addThroughClientTool(client)).toMatchObject({ name: "add", trajectoryId: response["cascadeId"] });
    // A 0.1.19 field this harness does not act on is named, never silent.
    await expect.poll(() => fixture.harness.stderr()).toContain("systemInstructions builtinSection (tools)");
    client.close();
  });

  it("refuses a 0.1.14 modifiedArgumentsJson that is not a JSON object, as before", async () => {
    const client = await fixture.open();
    await client.init(harnessConfig(fixture.workspace, ERA_0_1_14));
    client.prompt("list");
    const preTool = (await client.next(isHook("PRE_TOOL")))["callHookRequest"] as Frame;
    client.send({
      callHookResponse: {
        requestId: preTool["requestId"],
        preToolResult: { decision: "ALLOW", modifiedArgumentsJson: "[1, 2]" },
      },
    });
    const frames = await client.turn();
    expect(frames.some((f) => f["stepUpdate"]?.listDirectory?.directoryPath?.endsWith("/sub"))).toBe(false);
    expect(JSON.stringify(frames)).toContain("modifiedArgumentsJson that is not a JSON object");
    client.close();
  });
});

describe("wire eras: stdio mode takes the era from a Python client's ClientInfo", () => {
  async function handshake(version: string): Promise<{ client: TestClient; stop: () => Promise<unknown> }> {
    const harness = spawnHarness([], { env: harnessEnv() });
    harness.child.stdin.write(
      frameLengthPrefixed(encodeHandshakeInput({ clientInfo: { language: "python", version, os: "linux" }, env: {} })),
    );
    const reply = await new LengthPrefixedReader().readFirstMessage(harness.child.stdout);
    if (reply === undefined) throw new Error(`no OutputConfig:\n${harness.stderr()}`);
    const { port, apiKey } = decodeHandshakeOutput(reply);
    const client = await TestClient.connect(port, apiKey);
    return {
      client,
      stop: async () => {
        client.close();
        harness.child.stdin.end();
        return harness.exited;
      },
    };
  }

  for (const [version, told] of [
    ["0.1.14", false],
    ["0.1.19", true],
  ] as const) {
    it(`google-antigravity ${version}: sandboxStatus ${told ? "sent" : "left out"} for a first frame of neither era's spelling`, async () => {
      const { client, stop } = await handshake(version);
      try {
        const response = await client.init(harnessConfig(process.cwd()));
        expect("sandboxStatus" in response).toBe(told);
      } finally {
        expect(await stop()).toEqual({ code: 0, signal: null });
      }
    });
  }
});
