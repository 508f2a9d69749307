import { mkdir, mkdtemp, realpath, rm, symlink } from "node:fs/promises";
import { homedir, tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Agent as CoreAgent, ErrorCode, WebSocketTransport } from "@antigravity-ts/sdk";
import { createFakeHarnessTransport } from "@antigravity-ts/sdk/testing";
import { defaultAppDataDir, nodeAgentDefaults, resolveLocalPath, subprocessTransportFactory } from "./index.js";

// Issue 10 item 11 on Node: workspaces resolved as upstream's Path(p).expanduser().resolve()
// (local_connection_config.normalize_workspace_path) and upstream's resolved default app data
// directory, on a real file system with symlinks, dangling links and loops.

let root = "";
beforeAll(async () => {
  root = await realpath(await mkdtemp(path.join(tmpdir(), "antigravity-local-path-")));
  await mkdir(path.join(root, "real", "deep"), { recursive: true });
  await symlink(path.join(root, "real"), path.join(root, "link"));
  await symlink(path.join(root, "nowhere"), path.join(root, "dangling"));
  await symlink(path.join(root, "loop-b"), path.join(root, "loop-a"));
  await symlink(path.join(root, "loop-a"), path.join(root, "loop-b"));
});
afterAll(async () => {
  if (root !== "") await rm(root, { recursive: true, force: true });
});

describe("resolveLocalPath", () => {
  it("expands ~, resolves relative paths against the working directory and follows symlinks", () => {
    expect(resolveLocalPath("~")).toBe(resolveLocalPath(homedir()));
    expect(resolveLocalPath("~/x-not-there/y")).toBe(path.join(resolveLocalPath(homedir()), "x-not-there", "y"));
    expect(resolveLocalPath("rel-not-there")).toBe(path.join(resolveLocalPath(process.cwd()), "rel-not-there"));
    expect(resolveLocalPath(path.join(root, "link", "deep"))).toBe(path.join(root, "real", "deep"));
    expect(resolveLocalPath(path.join(root, "link", "..", "link", "new", "dir"))).toBe(
      path.join(root, "real", "new", "dir"),
    );
  });

  it("keeps a dangling link as written and refuses a symlink loop", () => {
    expect(resolveLocalPath(path.join(root, "dangling", "sub"))).toBe(path.join(root, "dangling", "sub"));
    expect(() => resolveLocalPath(path.join(root, "loop-a", "x"))).toThrow(
      expect.objectContaining({
        code: ErrorCode.InvalidArgument,
        message: expect.stringContaining("symbolic link loop"),
      }),
    );
  });

  it("gives upstream's default app data directory, resolved", () => {
    expect(defaultAppDataDir()).toBe(resolveLocalPath(path.join(homedir(), ".gemini", "antigravity")));
    expect(path.isAbsolute(defaultAppDataDir())).toBe(true);
  });
});

describe("the Node agent's configuration", () => {
  async function sentConfig(
    configure: (builder: ReturnType<typeof CoreAgent.builder>) => ReturnType<typeof CoreAgent.builder>,
    withTransport: boolean | "factory that starts the harness" = false,
  ) {
    let sent: unknown;
    const fake = createFakeHarnessTransport(async (harness) => {
      sent = (await harness.readInit()).config;
      harness.respondInit({ cascadeId: "c" });
    });
    const defaults = { ...nodeAgentDefaults(), defaultTransport: () => fake };
    const builder = configure(CoreAgent.builder(defaults));
    const transport =
      withTransport === "factory that starts the harness" ? Object.assign(() => fake, { startsHarness: true }) : fake;
    const agent = await (withTransport === false ? builder : builder.transport(transport))
      .allowAll()
      .build()
      .start({ timeoutMs: 5_000 });
    await agent.stop();
    return sent as { workspaces: { workspaceType: { value: { directory: string } } }[]; appDataDir?: string };
  }

  it("resolves ~, relative, file:// and symlinked workspaces and sends the default app data directory", async () => {
    const config = await sentConfig((b) =>
      b.workspaces("~/ws-not-there", "rel-ws", `file://${path.join(root, "link")}`, "cns://cell/x"),
    );
    expect(config.workspaces.map((w) => w.workspaceType.value.directory)).toEqual([
      path.join(resolveLocalPath(homedir()), "ws-not-there"),
      path.join(resolveLocalPath(process.cwd()), "rel-ws"),
      path.join(root, "real"),
      "/cns/cell/x",
    ]);
    expect(config.appDataDir).toBe(defaultAppDataDir());
  });

  it("keeps an explicit appDataDir, refuses a relative one, and sends none with a transport the user chose", async () => {
    expect((await sentConfig((b) => b.appDataDir("/custom/app/data"))).appDataDir).toBe("/custom/app/data");
    expect((await sentConfig((b) => b, true)).appDataDir ?? "").toBe("");
    // subprocessTransportFactory's harness is Node's own: it gets the default like no transport at all.
    expect((await sentConfig((b) => b, "factory that starts the harness")).appDataDir).toBe(defaultAppDataDir());
    expect(subprocessTransportFactory().startsHarness).toBe(true);
    await expect(
      CoreAgent.builder(nodeAgentDefaults())
        .transport(new WebSocketTransport({ url: "ws://127.0.0.1:9/" }))
        .appDataDir("relative")
        .allowAll()
        .build()
        .start(),
    ).rejects.toMatchObject({ code: ErrorCode.InvalidArgument });
  });
});
