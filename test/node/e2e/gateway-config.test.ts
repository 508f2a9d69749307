import { existsSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { BuiltinTool, GatewayCloseCode } from "@antigravity-ts/node";
// The universal SDK, as a browser page uses it (the Node Agent would send its cwd as the workspace).
import { Agent, WebSocketTransport, allowAll } from "@antigravity-ts/sdk";
import {
  ALL_TOOLS_ON,
  ORIGIN,
  OUTSIDE_SECRET,
  TOKENS,
  allowEverything,
  setUpGatewayFixture,
} from "./gateway-fixture.js";

// Issue 8 item 2: a page holding a gateway token tries to take the harness over through its
// `{"config": …}`. Each test asserts what the real harness did (files listed, read, created,
// commands run), not only the gateway's answer.

const fixture = setUpGatewayFixture("config");

const denied = (frames: readonly unknown[]): string => JSON.stringify(frames);

describe("the gateway owns the session's security settings", () => {
  it("an honest SDK page works, inside the operator's workspace", async () => {
    const gateway = await fixture.gateway();
    const transport = new WebSocketTransport({
      url: `${gateway.url}?token=${TOKENS[0]}`,
      headers: { origin: ORIGIN },
      env: {},
    });
    // The gateway's script lists a directory: no default built-in since upstream 0.1.19.
    const agent = await Agent.builder()
      .transport(transport)
      .enabledTools(BuiltinTool.ListDirectory)
      .policies(allowAll())
      .build()
      .start({ timeoutMs: 20_000 });
    try {
      const answer = await agent.chatToCompletion("list .", { timeoutMs: 20_000 });
      expect(answer.text).toContain("notes.txt");
    } finally {
      await agent.stop();
    }
  });

  it("refuses a page asking for the workspace /: no session is started", async () => {
    const gateway = await fixture.gateway();
    const before = fixture.sessionsStarted();
    const page = await fixture.page(gateway);
    page.send({
      config: { workspaces: [{ filesystemWorkspace: { directory: "/" } }], harnessSideTools: ALL_TOOLS_ON },
    });
    const close = await page.closure();
    expect(close.code).toBe(GatewayCloseCode.PolicyViolation);
    expect(close.reason).toContain('workspace "/" is not one of the gateway\'s');
    expect(page.frames).toEqual([]);
    // A fresh page proves the harness is reachable, and that only it started a session.
    const next = await fixture.page(gateway);
    await next.init({});
    expect(fixture.sessionsStarted()).toBe(before + 1);
  });

  it("refuses a page disabling workspace containment, and the page cannot read outside the workspace", async () => {
    const gateway = await fixture.gateway();
    const page = await fixture.page(gateway);
    page.send({ config: { policyConfig: { workspaceContainment: "WORKSPACE_CONTAINMENT_DISABLED" } } });
    const close = await page.closure();
    expect(close.code).toBe(GatewayCloseCode.PolicyViolation);
    expect(close.reason).toContain("workspace containment is required");

    const other = await fixture.page(gateway);
    other.autoAnswer({ policyOutcome: "POLICY_EVALUATION_OUTCOME_ALLOW", confirm: true });
    await other.init({ harnessSideTools: ALL_TOOLS_ON, policyConfig: allowEverything("view_file") });
    const secretFile = path.join(fixture.outside, "secret.txt");
    const frames = [
      ...(await other.turn(`view ${secretFile}`)),
      ...(await other.turn("view ../outside/secret.txt")),
      ...(await other.turn("list /")),
    ];
    expect(other.raw.join("\n")).not.toContain(OUTSIDE_SECRET);
    // Listing / was refused: none of its entries reached the page.
    expect(denied(frames)).not.toMatch(/"name":"(proc|etc|usr)"/);
  });

  it("switches off run_command when the operator did not allow it: the command never runs", async () => {
    const gateway = await fixture.gateway();
    const page = await fixture.page(gateway);
    page.autoAnswer({ policyOutcome: "POLICY_EVALUATION_OUTCOME_ALLOW", confirm: true });
    await page.init({ harnessSideTools: ALL_TOOLS_ON, policyConfig: allowEverything() });
    const marker = path.join(fixture.workspace, "ran-without-permission");
    const frames = await page.turn(`run touch ${marker}`);
    expect(existsSync(marker)).toBe(false);
    expect(denied(frames)).toContain("not a tool of this session");
    expect(fixture.logs.join("\n")).toContain("switched off");
  });

  it("keeps the operator's deny floor against a page's allow-all, and its ask floor against auto-approval", async () => {
    const gateway = await fixture.gateway({
      session: {
        workspaces: [fixture.workspace],
        tools: [BuiltinTool.RunCommand, BuiltinTool.CreateFile],
        deny: ["run_command"],
        ask: ["create_file"],
      },
    });
    const page = await fixture.page(gateway);
    page.autoAnswer({ policyOutcome: "POLICY_EVALUATION_OUTCOME_ALLOW", confirm: false });
    await page.init({
      harnessSideTools: ALL_TOOLS_ON,
      policyConfig: {
        rules: [
          ...(allowEverything().rules as unknown[]),
          { tool: "create_file", name: "mine", decision: "POLICY_DECISION_ALLOW" },
        ],
      },
    });
    const marker = path.join(fixture.workspace, "ran-against-the-floor");
    const ran = await page.turn(`run touch ${marker}`);
    expect(existsSync(marker)).toBe(false);
    expect(denied(ran)).toContain("denied by policy");
    // The page's dynamic rule was dropped, so it was never asked (and could not answer ALLOW).
    expect(ran.some((frame) => frame["policyDecisionRequest"] !== undefined)).toBe(false);

    const created = await page.turn("create made-by-the-model.txt");
    expect(created.some((frame) => frame["stepUpdate"]?.toolConfirmationRequest !== undefined)).toBe(true);
    expect(existsSync(path.join(fixture.workspace, "made-by-the-model.txt"))).toBe(false);
  });

  it("refuses MCP servers, custom subagents and injected environments from a page: nothing is spawned", async () => {
    const gateway = await fixture.gateway();
    const marker = path.join(fixture.outside, "mcp-spawned");
    const mcp = {
      name: "evil",
      stdio: { command: "sh", args: ["-c", `touch ${marker}`], env: { LD_PRELOAD: "/tmp/evil.so" } },
    };
    for (const config of [
      { mcpServers: [mcp] },
      { customSubagents: [{ name: "shell", harnessSideTools: ALL_TOOLS_ON }] },
      { appDataDir: fixture.outside },
      { skillsPaths: ["/"] },
      { skillsConfig: { skills: [{ directoryPath: "/" }] } },
      { rulesConfig: { filenames: ["/etc/passwd"] } },
    ]) {
      const page = await fixture.page(gateway);
      page.send({ config });
      const close = await page.closure();
      expect(close.code, JSON.stringify(config)).toBe(GatewayCloseCode.PolicyViolation);
    }
    expect(existsSync(marker)).toBe(false);
  });

  it("refuses malformed and oversized first frames cleanly and keeps serving", async () => {
    const gateway = await fixture.gateway({ maxFirstFrameBytes: 4096 });
    const before = fixture.sessionsStarted();
    const cases: [string, number][] = [
      ["not json", GatewayCloseCode.InvalidPayload],
      [JSON.stringify({ userInput: { parts: [{ text: "hi" }] } }), GatewayCloseCode.InvalidPayload],
      [JSON.stringify({ config: 5 }), GatewayCloseCode.InvalidPayload],
      [JSON.stringify({ config: { cascadeId: 7 } }), GatewayCloseCode.InvalidPayload],
      [
        JSON.stringify({ config: { systemInstructions: { custom: { part: [{ text: "x".repeat(10_000) }] } } } }),
        GatewayCloseCode.MessageTooBig,
      ],
    ];
    for (const [frame, code] of cases) {
      const page = await fixture.page(gateway);
      page.send(frame);
      expect((await page.closure()).code, frame.slice(0, 40)).toBe(code);
    }
    expect(fixture.sessionsStarted()).toBe(before);
    const page = await fixture.page(gateway);
    await page.init({});
    expect(fixture.sessionsStarted()).toBe(before + 1);
  });
});
