import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createInMemoryHarness, parseScript, type InMemoryHarness } from "@antigravity-ts/harness";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Agent, BuiltinTool, DEFAULT_TOOLS, ErrorCode, SdkError, defineTool, localHarness } from "../index.js";
import type { Channel, Transport } from "../transport/transport.js";

// The SDK against the reference harness in each wire era (docs/upstream-differences.md "wire
// eras"): what it writes (captured frame by frame), that the harness acts on it the same way,
// the era shown in agent.info, and an option the 0.1.14 era cannot carry refused at start().

/** `inner`, with every frame the SDK sends kept in `sent`. */
function capturing(inner: Transport, sent: unknown[]): Transport {
  return {
    async connect(options) {
      const channel = await inner.connect(options);
      const wrapped: Channel = {
        send: (frame) => {
          sent.push(JSON.parse(frame));
          channel.send(frame);
        },
        frames: () => channel.frames(),
        close: (o) => channel.close(o),
      };
      return wrapped;
    },
  };
}

describe("the SDK in each localharness wire era", () => {
  let workspace = "";
  let harness: InMemoryHarness;

  beforeAll(async () => {
    workspace = await mkdtemp(path.join(tmpdir(), "antigravity-eras-"));
    await mkdir(path.join(workspace, "sub"));
    await writeFile(path.join(workspace, "sub", "inner.txt"), "x");
    const script = parseScript({
      turns: [
        {
          match: "list",
          calls: [
            { toolCalls: [{ name: "list_directory", args: { directory_path: "." } }] },
            { text: "listed {{result.directory}}" },
          ],
        },
        { match: "where", calls: [{ toolCalls: [{ name: "where", args: {} }] }, { text: "done" }] },
      ],
    });
    harness = createInMemoryHarness({ workspace, script });
  });

  afterAll(async () => {
    await harness.close();
    await rm(workspace, { recursive: true, force: true });
  });

  for (const era of ["0.1.19", "0.1.14"] as const) {
    it(`${era}: writes its era's spelling, and a PRE_TOOL hook's arguments reach the harness`, async () => {
      const sent: Record<string, any>[] = [];
      const strategy =
        era === "0.1.19"
          ? localHarness(capturing(harness, sent))
          : localHarness(capturing(harness, sent), { wireEra: era });
      const agent = await Agent.builder()
        .connection(strategy)
        .workspaces(workspace)
        // The script lists a directory: no default built-in since upstream 0.1.19.
        .enabledTools(...DEFAULT_TOOLS, BuiltinTool.ListDirectory)
        .compactionThreshold(60_000)
        .hook({
          preToolCall: (call) =>
            call.name === "list_directory" ? { allow: true, modifiedArgs: { directory_path: "sub" } } : undefined,
        })
        .allowAll()
        .build()
        .start();
      try {
        expect(agent.info.wireEra).toBe(era);
        const response = await agent.chatToCompletion("list");
        expect(response.text).toMatch(/^listed .*sub$/);
      } finally {
        await agent.stop();
      }
      const config = sent[0]?.["config"];
      const preTool = sent
        .map((frame) => frame["callHookResponse"]?.preToolResult)
        .find((result) => result !== undefined);
      if (era === "0.1.19") {
        expect(config.compactionConfig).toEqual({ tokenThreshold: 60_000 });
        expect(preTool).toEqual({
          decision: "ALLOW",
          modifiedArgs: { fields: [{ name: "directory_path", value: { stringValue: "sub" } }] },
        });
      } else {
        expect(config.compactionConfig).toEqual({ checkpointIntervalTokens: 60_000 });
        expect(preTool).toEqual({
          decision: "ALLOW",
          modifiedArgumentsJson: JSON.stringify({ directory_path: "sub" }),
        });
      }
    });
  }

  it("tells a client tool its trajectory (ToolCall.trajectory_id): the main trajectory, the conversation id", async () => {
    const seen: (string | undefined)[] = [];
    const sent: Record<string, any>[] = [];
    const frames: string[] = [];
    const tool = defineTool({
      name: "where",
      description: "",
      call: (_args, context) => (seen.push(context.trajectoryId), { ok: true }),
    });
    const recordingHarness: Transport = {
      async connect(options) {
        const channel = await capturing(harness, sent).connect(options);
        return {
          send: (frame) => channel.send(frame),
          close: (o) => channel.close(o),
          frames: async function* () {
            for await (const frame of channel.frames()) {
              frames.push(frame);
              yield frame;
            }
          },
        };
      },
    };
    const agent = await Agent.builder()
      .transport(recordingHarness)
      .workspaces(workspace)
      .tool(tool)
      .allowAll()
      .build()
      .start();
    try {
      await agent.chatToCompletion("where");
      expect(seen).toEqual([agent.conversationId]);
      const toolCall = frames.map((f) => JSON.parse(f)).find((f) => f.toolCall !== undefined)?.toolCall;
      expect(toolCall).toMatchObject({ name: "where", trajectoryId: agent.conversationId });
    } finally {
      await agent.stop();
    }
  });

  it("0.1.14: refuses at start() an option the era cannot carry, naming it, before anything connects", async () => {
    const sent: unknown[] = [];
    let connects = 0;
    const counting: Transport = {
      connect: (options) => {
        connects += 1;
        return capturing(harness, sent).connect(options);
      },
    };
    const agent = Agent.builder()
      .connection(localHarness(counting, { wireEra: "0.1.14" }))
      .workspaces(workspace)
      .compaction({ maxContextTokens: 100_000 })
      .allowAll()
      .build();
    const failure = await agent.start().then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(SdkError);
    expect((failure as SdkError).code).toBe(ErrorCode.Unsupported);
    expect((failure as SdkError).message).toContain("CompactionConfig.maxContextTokens");
    expect(connects).toBe(0);
    expect(sent).toEqual([]);
    await expect.poll(() => harness.sessionCount).toBe(0);
  });
});
