import { execFile } from "node:child_process";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { Agent, createFileConversationStore } from "@antigravity-ts/node";
import { InteractionsClient, hostedAgent } from "@antigravity-ts/sdk/hosted";
import { parseScript, startInteractionsEmulator, type InteractionsEmulator } from "@antigravity-ts/harness";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// A conversation of three turns on the hosted agent, restored from a store in a new process: two
// turns here, saved to a file store; the third in a child process that loads the conversation and
// goes on from the last interaction its history names (previous_interaction_id).

const KEY = "store-test-key-0123456789";
const here = path.dirname(fileURLToPath(import.meta.url));

let root = "";
let emulator: InteractionsEmulator;

beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), "antigravity-hosted-store-"));
  await mkdir(path.join(root, "ws"));
  const script = parseScript({
    turns: [
      { match: "first", calls: [{ text: "One." }] },
      { match: "second", calls: [{ text: "Two." }] },
      { match: "third", calls: [{ text: "Three." }] },
    ],
  });
  emulator = await startInteractionsEmulator({
    apiKey: KEY,
    host: "127.0.0.1",
    port: 0,
    workspace: path.join(root, "ws"),
    script,
  });
}, 60_000);

afterAll(async () => {
  await emulator?.close();
  if (root !== "") await rm(root, { recursive: true, force: true });
});

const interactionOf = (stepId: string): string => stepId.slice(0, stepId.lastIndexOf(":"));

describe("a hosted conversation restored from a store in a new process", () => {
  it("goes on from the last interaction of its history", async () => {
    const conversationId = crypto.randomUUID();
    const storeDir = path.join(root, "store");
    const secondInteraction = await (async () => {
      await using agent = await Agent.builder()
        .connection(hostedAgent({ apiKey: KEY, baseUrl: emulator.url }))
        .conversationId(conversationId)
        .sessionContinuationMode("createOrResume")
        .conversationStore(createFileConversationStore(storeDir))
        .allowAll()
        .build()
        .start();
      expect((await agent.chatToCompletion("first")).text).toBe("One.");
      expect((await agent.chatToCompletion("second")).text).toBe("Two.");
      await agent.conversation().save();
      return interactionOf((await agent.conversation().history()).at(-1)?.id ?? "");
    })();
    const require = createRequire(import.meta.url);
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [
        "--conditions=antigravity-source",
        "--import",
        pathToFileURL(require.resolve("tsx")).href,
        path.join(here, "fixtures/next-turn.ts"),
      ],
      {
        env: {
          ...process.env,
          HOSTED_KEY: KEY,
          HOSTED_BASE_URL: emulator.url,
          HOSTED_CONVERSATION_ID: conversationId,
          HOSTED_STORE_DIR: storeDir,
          HOSTED_PROMPT: "third",
        },
        timeout: 120_000,
      },
    );
    const child = JSON.parse(stdout.trim().split("\n").at(-1) ?? "{}") as {
      text: string;
      turns: number;
      ids: string[];
      prompts: string[];
    };
    expect(child.text).toBe("Three.");
    expect(child.turns).toBe(3);
    expect(child.prompts).toEqual(["first", "second", "third"]); // each turn opens with its prompt, restored too
    const third = interactionOf(child.ids.at(-1) ?? "");
    expect(new Set(child.ids.map(interactionOf)).size).toBe(3); // three interactions' steps, none overwritten
    const resource = await new InteractionsClient({ apiKey: KEY, baseUrl: emulator.url }).get(third);
    expect(resource["previous_interaction_id"]).toBe(secondInteraction);
  }, 150_000);
});
