import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import { Agent } from "@antigravity-ts/sdk";
import { acpAgent, type AcpFileSystem } from "@antigravity-ts/sdk/acp";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { workspaceTextFiles } from "./workspace-text-files.js";

// The client's file system served to an ACP agent (fs/read_text_file, fs/write_text_file), confined
// to the workspace with the harness's own checks: escapes by `..`, absolute paths, symlinks (file,
// directory, last component) and special files are refused, and nothing outside is read or written.

let root = "";
let ws = "";
let outside = "";
beforeEach(async () => {
  root = await mkdtemp(path.join(tmpdir(), "acp-fs-"));
  ws = path.join(root, "ws");
  outside = path.join(root, "outside");
  await mkdir(ws);
  await mkdir(outside);
  await writeFile(path.join(outside, "secret.txt"), "TOP SECRET\n");
  await writeFile(path.join(ws, "notes.txt"), "one\ntwo\nthree\nfour\n");
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

describe("workspaceTextFiles", () => {
  let fs: AcpFileSystem;
  beforeEach(async () => {
    fs = await workspaceTextFiles([ws]);
  });

  it("reads and writes inside the workspace (line/limit; missing parents created)", async () => {
    expect(await fs.readTextFile(path.join(ws, "notes.txt"), {})).toBe("one\ntwo\nthree\nfour\n");
    expect(await fs.readTextFile(path.join(ws, "notes.txt"), { line: 2, limit: 2 })).toBe("two\nthree");
    await fs.writeTextFile(path.join(ws, "deep", "er", "new.txt"), "hello");
    expect(await readFile(path.join(ws, "deep", "er", "new.txt"), "utf8")).toBe("hello");
    await fs.writeTextFile(path.join(ws, "notes.txt"), "short");
    expect(await readFile(path.join(ws, "notes.txt"), "utf8")).toBe("short");
  });

  it("refuses paths outside: .., absolute elsewhere", async () => {
    await expect(fs.readTextFile(path.join(ws, "..", "outside", "secret.txt"), {})).rejects.toThrow(
      /outside the workspace/,
    );
    await expect(fs.readTextFile(path.join(outside, "secret.txt"), {})).rejects.toThrow(/outside the workspace/);
    await expect(fs.writeTextFile(path.join(outside, "planted.txt"), "x")).rejects.toThrow(/outside the workspace/);
    await expect(readFile(path.join(outside, "planted.txt"))).rejects.toThrow();
  });

  it("refuses symlink escapes: a file link, a directory link, a link as the write target, a dangling link", async () => {
    await symlink(path.join(outside, "secret.txt"), path.join(ws, "link.txt"));
    await symlink(outside, path.join(ws, "dirlink"));
    await symlink(path.join(outside, "planted.txt"), path.join(ws, "dangling.txt"));
    await expect(fs.readTextFile(path.join(ws, "link.txt"), {})).rejects.toThrow(/symlink|symbolic link|outside/);
    await expect(fs.readTextFile(path.join(ws, "dirlink", "secret.txt"), {})).rejects.toThrow(
      /symlink|symbolic link|outside/,
    );
    await expect(fs.writeTextFile(path.join(ws, "link.txt"), "overwritten")).rejects.toThrow(
      /symlink|symbolic link|outside/,
    );
    await expect(fs.writeTextFile(path.join(ws, "dirlink", "planted.txt"), "x")).rejects.toThrow(
      /symlink|symbolic link|outside/,
    );
    await expect(fs.writeTextFile(path.join(ws, "dangling.txt"), "x")).rejects.toThrow(
      /symlink|symbolic link|outside|exists/,
    );
    expect(await readFile(path.join(outside, "secret.txt"), "utf8")).toBe("TOP SECRET\n");
    await expect(readFile(path.join(outside, "planted.txt"))).rejects.toThrow();
  });

  it("refuses special files and directories", async () => {
    execFileSync("mkfifo", [path.join(ws, "pipe")]);
    await expect(fs.readTextFile(path.join(ws, "pipe"), {})).rejects.toThrow(/FIFO|regular/);
    await expect(fs.writeTextFile(path.join(ws, "pipe"), "x")).rejects.toThrow(/FIFO|regular/);
    await expect(fs.readTextFile(ws, {})).rejects.toThrow(/directory/);
  });
});

describe("fs/* over ACP (an agent made with the library's agent side)", () => {
  /** An agent whose prompt is `read <path>` or `write <path>`: it calls the client's fs and says the outcome. */
  function fsAgent(stream: acp.Stream, seen: { capabilities?: acp.ClientCapabilities }) {
    return acp
      .agent({ name: "fs-agent" })
      .onRequest(acp.methods.agent.initialize, ({ params }) => {
        seen.capabilities = params.clientCapabilities ?? {};
        return { protocolVersion: acp.PROTOCOL_VERSION, agentCapabilities: {}, authMethods: [] };
      })
      .onRequest(acp.methods.agent.session.new, () => ({ sessionId: "s" }))
      .onRequest(acp.methods.agent.session.prompt, async ({ params, client }) => {
        const text = params.prompt.map((b) => (b.type === "text" ? b.text : "")).join("");
        const [verb, file = ""] = text.split(" ");
        let outcome: string;
        try {
          outcome =
            verb === "read"
              ? `read: ${(await client.request(acp.methods.client.fs.readTextFile, { sessionId: "s", path: file })).content}`
              : (await client.request(acp.methods.client.fs.writeTextFile, {
                  sessionId: "s",
                  path: file,
                  content: "from the agent",
                }),
                "written");
        } catch (error) {
          outcome = `refused: ${(error as Error).message}`;
        }
        await client.notify(acp.methods.client.session.update, {
          sessionId: "s",
          update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: outcome } },
        });
        return { stopReason: "end_turn" };
      })
      .connect(stream);
  }
  function pair(): { client: acp.Stream; agent: acp.Stream } {
    const a = new TransformStream<acp.AnyMessage, acp.AnyMessage>();
    const b = new TransformStream<acp.AnyMessage, acp.AnyMessage>();
    return {
      client: { writable: a.writable, readable: b.readable },
      agent: { writable: b.writable, readable: a.readable },
    };
  }

  it("off by default: no fs capability advertised, and a request is refused", async () => {
    const { client, agent } = pair();
    const seen: { capabilities?: acp.ClientCapabilities } = {};
    const peer = fsAgent(agent, seen);
    const started = await Agent.builder()
      .connection(acpAgent({ stream: client, cwd: ws }))
      .allowAll()
      .build()
      .start();
    expect(seen.capabilities?.fs?.readTextFile ?? false).toBe(false);
    expect(seen.capabilities?.fs?.writeTextFile ?? false).toBe(false);
    expect((await started.chatToCompletion(`read ${path.join(ws, "notes.txt")}`)).text).toMatch(/^refused: /);
    await started.stop();
    peer.close();
  });

  it("with workspaceTextFiles: advertised; inside read and written; a symlink escape refused over the wire", async () => {
    const { client, agent } = pair();
    const seen: { capabilities?: acp.ClientCapabilities } = {};
    const peer = fsAgent(agent, seen);
    await symlink(path.join(outside, "secret.txt"), path.join(ws, "link.txt"));
    const started = await Agent.builder()
      .connection(acpAgent({ stream: client, cwd: ws, fileSystem: await workspaceTextFiles([ws]) }))
      .allowAll()
      .build()
      .start();
    expect(seen.capabilities?.fs).toEqual({ readTextFile: true, writeTextFile: true });
    expect((await started.chatToCompletion(`read ${path.join(ws, "notes.txt")}`)).text).toBe(
      "read: one\ntwo\nthree\nfour\n",
    );
    expect((await started.chatToCompletion(`write ${path.join(ws, "out.txt")}`)).text).toBe("written");
    expect(await readFile(path.join(ws, "out.txt"), "utf8")).toBe("from the agent");
    const escaped = (await started.chatToCompletion(`read ${path.join(ws, "link.txt")}`)).text;
    expect(escaped).toMatch(/^refused: /);
    expect(escaped).not.toContain("TOP SECRET");
    expect((await started.chatToCompletion(`write ${path.join(ws, "link.txt")}`)).text).toMatch(/^refused: /);
    expect(await readFile(path.join(outside, "secret.txt"), "utf8")).toBe("TOP SECRET\n");
    await started.stop();
    peer.close();
  });
});
