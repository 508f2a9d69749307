import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, beforeAll } from "vitest";
import { createHarnessGateway, type HarnessGateway, type HarnessGatewayOptions } from "@antigravity-ts/node";
import { harnessEnv, killAllHarnesses, startListeningHarness, type ListeningHarness } from "@antigravity-ts/test-kit";
import { PageClient } from "./page-client.js";

// One listening reference harness (scripted model, scripts/gateway-script.json) behind gateways
// the tests create with the operator settings they need. The harness holds its key in its
// environment (a second one, started on demand, in a file named by --api-key-file), and a stand-in
// for the gateway's own secrets in its environment, the way an operator starts it by hand (README),
// so tests can look for them in what a page receives.

const SCRIPT = fileURLToPath(new URL("./scripts/gateway-script.json", import.meta.url));
export const ORIGIN = "http://app.test";
export const HARNESS_KEY = "harness-key-do-not-leak-4a1f9c";
export const GATEWAY_SECRET = "gateway-env-secret-77b2e0";
/** The file name of the key file of {@link GatewayFixture.keyFileHarness}: a page must not learn where the key is. */
export const KEY_FILE_NAME = "harness-key-file-8e21d4";
/** Page tokens the gateways accept; each is another page (user). */
export const TOKENS = ["alice-token", "bob-token", "carol-token"] as const;

/** What {@link setUpGatewayFixture} sets up. */
export interface GatewayFixture {
  /** The operator's workspace: holds notes.txt. */
  readonly workspace: string;
  /** A sibling of the workspace holding secret.txt with {@link OUTSIDE_SECRET}. */
  readonly outside: string;
  readonly harness: ListeningHarness;
  /** Log lines of the gateways started by {@link gateway}. */
  readonly logs: string[];
  /** A gateway in front of the harness with `session` (workspace defaulted) and other options; closed after the test. */
  gateway(options?: Partial<HarnessGatewayOptions>): Promise<HarnessGateway>;
  /** A page connected to `gateway` with a token (default alice's). */
  page(gateway: HarnessGateway, token?: string): Promise<PageClient>;
  /** How many sessions the harness has started so far (its "new session"/"resumed session" log lines). */
  sessionsStarted(): number;
  /** A second harness like {@link harness} whose key is in a file (`--api-key-file keyFile`), not its environment; started once. */
  keyFileHarness(): Promise<{ harness: ListeningHarness; keyFile: string }>;
}

export const OUTSIDE_SECRET = "outside-secret-content-5d03";

/** Registers the suite's setup and teardown; the fixture is usable from `beforeAll` on. */
export function setUpGatewayFixture(name: string): GatewayFixture {
  let root = "";
  let harness: ListeningHarness | undefined;
  const gateways: HarnessGateway[] = [];
  const pages: PageClient[] = [];
  const logs: string[] = [];
  let keyFileHarness: Promise<{ harness: ListeningHarness; keyFile: string }> | undefined;
  const fixture: GatewayFixture = {
    get workspace() {
      return path.join(root, "ws");
    },
    get outside() {
      return path.join(root, "outside");
    },
    get harness() {
      if (harness === undefined) throw new Error("the gateway fixture is used before its beforeAll ran");
      return harness;
    },
    logs,
    async gateway(options = {}) {
      const gateway = await createHarnessGateway({
        target: { url: `ws://127.0.0.1:${fixture.harness.port}/`, apiKey: HARNESS_KEY },
        allowedOrigins: [ORIGIN],
        token: (token) => (TOKENS as readonly string[]).includes(token),
        session: { workspaces: [fixture.workspace] },
        log: (line) => logs.push(line),
        ...options,
      });
      gateways.push(gateway);
      return gateway;
    },
    async page(gateway, token = TOKENS[0]) {
      const page = await PageClient.open(gateway.url ?? "", token, ORIGIN);
      pages.push(page);
      return page;
    },
    sessionsStarted: () => (fixture.harness.stderr().match(/(new|resumed) session /g) ?? []).length,
    keyFileHarness() {
      keyFileHarness ??= (async () => {
        const keyFile = path.join(root, "operator-keys", KEY_FILE_NAME);
        await mkdir(path.dirname(keyFile));
        const env = { ...harnessEnv(SCRIPT), GATEWAY_SECRET };
        const harness = await startListeningHarness({
          env,
          workspace: path.join(root, "harness-default"),
          apiKey: HARNESS_KEY,
          apiKeyFile: keyFile,
        });
        return { harness, keyFile };
      })();
      return keyFileHarness;
    },
  };
  beforeAll(async () => {
    root = await mkdtemp(path.join(tmpdir(), `gateway-${name}-`));
    await mkdir(fixture.workspace);
    await mkdir(fixture.outside);
    await mkdir(path.join(root, "harness-default"));
    await writeFile(path.join(fixture.workspace, "notes.txt"), "inside the workspace\n");
    await writeFile(path.join(fixture.outside, "secret.txt"), `${OUTSIDE_SECRET}\n`);
    const env = { ...harnessEnv(SCRIPT), ANTIGRAVITY_API_KEY: HARNESS_KEY, GATEWAY_SECRET };
    harness = await startListeningHarness({ env, workspace: path.join(root, "harness-default"), apiKey: HARNESS_KEY });
  });
  afterEach(async () => {
    for (const page of pages.splice(0)) page.close();
    await Promise.all(gateways.splice(0).map((gateway) => gateway.close()));
    logs.length = 0;
  });
  afterAll(async () => {
    await killAllHarnesses();
    if (root !== "") await rm(root, { recursive: true, force: true });
  });
  return fixture;
}

/** Every switch of §11.1 on: what a hostile page asks for. */
export const ALL_TOOLS_ON = {
  find: { enabled: true },
  runCommand: { enabled: true, maxTimeoutMs: 0, enableDaemonCommands: true },
  subagents: { enabled: true },
  userQuestions: { enabled: true },
  fileEdit: { enabled: true },
  viewFile: { enabled: true },
  writeToFile: { enabled: true },
  grepSearch: { enabled: true },
  listDir: { enabled: true },
  generateImage: { enabled: true },
  searchWeb: { enabled: true },
  readUrlContent: { enabled: true },
};

/** An allow-everything policy: static `*` allow plus an explicit allow of `tool`. */
export function allowEverything(tool = "run_command"): Record<string, unknown> {
  return {
    rules: [
      { tool: "*", name: "allow_all", decision: "POLICY_DECISION_ALLOW", isDynamic: false, ruleId: "" },
      { tool, name: "mine", decision: "POLICY_DECISION_ALLOW", isDynamic: false, ruleId: "" },
      { tool, name: "ask-me", decision: "POLICY_DECISION_DENY", isDynamic: true, ruleId: "rule_2" },
    ],
  };
}
