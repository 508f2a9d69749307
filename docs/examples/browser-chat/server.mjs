#!/usr/bin/env node
// Serves the browser-chat page and, on the same port, the harness gateway the page talks to.
// The page never sees the harness key: the gateway adds `x-goog-api-key` itself and only admits
// pages from this server's own origin that present the per-start token. What a page's session may
// do (workspace, tools, containment) is decided here, not by the page (docs/gateway.md).
//
//   npm run build                                   # builds the packages and dist/app.js
//   node docs/examples/browser-chat/server.mjs      # then open the printed URL
//
// Options:
//   --port N           port to serve on (default 8080; 0 = any free port)
//   --harness URL      use a harness already listening there (with --harness-key or ANTIGRAVITY_API_KEY)
//   --per-client       a fresh harness subprocess per browser tab (SubprocessTransport)
//   --script FILE      script for the reference harness's offline model
//   --workspace DIR    the directory the agent works in (default: the current directory)
//   --allow-run-command  let pages enable run_command (each call still asks in the page's dialog);
//                      off by default: run_command runs anything as your OS user (docs/gateway.md)
// By default it starts the reference harness with `--listen 127.0.0.1:0` and relays every tab to it.
// On start it prints one JSON line to stdout: {"url", "harnessPid"} (used by test/browser).
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readFile } from "node:fs/promises";
import { createServer } from "node:http";
import { createRequire } from "node:module";
import { dirname, extname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { BuiltinTool, createHarnessGateway, SubprocessTransport } from "@antigravity-ts/node";

const here = dirname(fileURLToPath(import.meta.url));
const { values: args } = parseArgs({
  options: {
    port: { type: "string", default: "8080" },
    host: { type: "string", default: "127.0.0.1" },
    harness: { type: "string" },
    "harness-key": { type: "string" },
    "per-client": { type: "boolean", default: false },
    script: { type: "string" },
    workspace: { type: "string", default: process.cwd() },
    "allow-run-command": { type: "boolean", default: false },
  },
});

/** Static files of the page: URL path -> file and content type. */
const files = {
  "/": [join(here, "public/index.html"), "text/html; charset=utf-8"],
  "/index.html": [join(here, "public/index.html"), "text/html; charset=utf-8"],
  "/style.css": [join(here, "public/style.css"), "text/css; charset=utf-8"],
  "/app.js": [join(here, "dist/app.js"), "text/javascript; charset=utf-8"],
  "/app.js.map": [join(here, "dist/app.js.map"), "application/json"],
};

/** A fresh secret per server start; the page fetches it from /config.json (same origin only). */
const token = randomBytes(24).toString("base64url");
let origins = [];

const server = createServer(async (request, response) => {
  const path = new URL(request.url ?? "/", "http://localhost").pathname;
  if (path === "/config.json") {
    // Same-origin fetch only: no CORS headers, so other sites cannot read the token.
    response.writeHead(200, { "content-type": "application/json", "cache-control": "no-store" });
    response.end(JSON.stringify({ gatewayPath: "/harness", token }));
    return;
  }
  const entry = files[path];
  if (entry === undefined || request.method !== "GET") {
    response.writeHead(404, { "content-type": "text/plain" }).end("not found\n");
    return;
  }
  try {
    const body = await readFile(entry[0]);
    response.writeHead(200, { "content-type": entry[1], "cache-control": "no-store" }).end(body);
  } catch {
    const hint = extname(entry[0]) === ".js" ? " (run `npm run build` first)" : "";
    response.writeHead(500, { "content-type": "text/plain" }).end(`cannot read ${entry[0]}${hint}\n`);
  }
});

let harness;
let target;
if (args.harness !== undefined) {
  const apiKey = args["harness-key"] ?? process.env.ANTIGRAVITY_API_KEY;
  if (!apiKey) fail("--harness needs --harness-key or ANTIGRAVITY_API_KEY");
  target = { url: args.harness, apiKey };
} else if (args["per-client"]) {
  target = {
    transport: () => new SubprocessTransport(args.script ? { env: { ANTIGRAVITY_SCRIPT: args.script } } : {}),
  };
} else {
  harness = await startHarness();
  target = { url: harness.url, apiKey: harness.apiKey };
}

await new Promise((resolve, reject) => {
  server.once("error", reject);
  server.listen(Number(args.port), args.host, resolve);
});
const { port } = server.address();
origins = [`http://${args.host}:${port}`, `http://localhost:${port}`, `http://127.0.0.1:${port}`];
// The operator's half of every session: pages may narrow it, never widen it.
const session = {
  workspaces: [resolve(args.workspace)],
  tools: [
    BuiltinTool.ListDirectory,
    BuiltinTool.SearchDirectory,
    BuiltinTool.FindFile,
    BuiltinTool.ViewFile,
    ...(args["allow-run-command"] ? [BuiltinTool.RunCommand] : []),
  ],
};
const gateway = await createHarnessGateway({
  server,
  path: "/harness",
  target,
  allowedOrigins: origins,
  token,
  session,
});
const url = `http://${args.host}:${port}/`;
console.log(JSON.stringify({ url, harnessPid: harness?.child.pid ?? null }));
console.error(`browser chat on ${url}`);

// Shut down in order: browsers, gateway, HTTP server, then the harness (never an orphan).
let stopping = false;
async function shutdown(code) {
  if (stopping) return;
  stopping = true;
  await gateway.close().catch(() => {});
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  harness?.child.kill("SIGTERM");
  process.exit(code);
}
process.on("SIGINT", () => void shutdown(0));
process.on("SIGTERM", () => void shutdown(0));
process.on("exit", () => harness?.child.kill("SIGKILL"));
// A harness that dies is reported; the tabs connected to it see their connection drop.
harness?.child.on("exit", (code, signal) => {
  if (!stopping) console.error(`reference harness exited (${signal ?? code}); new tabs will fail until restart`);
});

/** Starts the reference harness in --listen mode on a free loopback port. */
async function startHarness() {
  const require = createRequire(import.meta.url);
  const bin = join(dirname(require.resolve("@antigravity-ts/harness/package.json")), "dist/bin.cjs");
  const apiKey = randomBytes(24).toString("base64url");
  const harnessArgs = [bin, "--listen", "127.0.0.1:0", ...(args.script ? ["--script", args.script] : [])];
  // The key goes in the environment: on the command line, `ps` would show it.
  const child = spawn(process.execPath, harnessArgs, {
    stdio: ["ignore", "inherit", "pipe"],
    env: { ...process.env, ANTIGRAVITY_API_KEY: apiKey },
  });
  const harnessUrl = await new Promise((resolve, reject) => {
    let stderr = "";
    const timer = setTimeout(
      () => reject(new Error(`the harness did not start listening within 15 s:\n${stderr}`)),
      15_000,
    );
    child.stderr.setEncoding("utf8");
    child.stderr.on("data", (chunk) => {
      process.stderr.write(chunk);
      stderr += chunk;
      const match = /listening on (ws:\/\/\S+)/.exec(stderr);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    child.once("exit", (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`the harness exited (${signal ?? code}) before listening:\n${stderr}`));
    });
  }).catch((error) => {
    child.kill("SIGKILL");
    fail(error.message);
  });
  return { child, url: harnessUrl, apiKey };
}

function fail(message) {
  console.error(`browser-chat server: ${message}`);
  process.exit(1);
}
