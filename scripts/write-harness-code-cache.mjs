// Writes the bundled harness's V8 code cache (dist/bin.bundle.cjs.cache; packages/harness/src/code-cache.ts):
// starts dist/bin.cjs once in stdio mode with no cache, so it compiles everything and writes the
// cache as it exits, after the stdio handshake (protocol §3) and one session's initialisation over
// the WebSocket (§4), the path every `Agent.start()` takes. The scripted model, an empty
// workspace, no storage: nothing outside a temporary folder is touched. Called by rollup.config.mjs.
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import WebSocket from "ws";

/** What a client's first frame usually is: an `InitializeConversationEvent` with a policy. */
const INIT_FRAME = JSON.stringify({
  config: {
    policyConfig: { rules: [{ tool: "*", name: "allow_all", decision: "POLICY_DECISION_ALLOW" }] },
    agentBehavior: "AGENT_BEHAVIOR_AUTONOMOUS",
  },
});
const TIMEOUT_MS = 30_000;

/** Starts `bin` (dist/bin.cjs) once so that it writes `cacheFile`; throws when it did not. */
export async function writeHarnessCodeCache(bin, cacheFile) {
  cacheFile = resolve(cacheFile);
  rmSync(cacheFile, { force: true });
  const workspace = mkdtempSync(join(tmpdir(), "harness-code-cache-"));
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([key]) => !/^(GEMINI_|OPENAI_|ANTIGRAVITY_|GOOGLE_)/.test(key)),
  );
  const child = spawn(process.execPath, [resolve(bin)], {
    cwd: workspace,
    env: { ...env, ANTIGRAVITY_MODEL_PROVIDER: "scripted" },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr.on("data", (chunk) => (stderr += chunk));
  const exited = new Promise((resolve) => child.once("close", (code) => resolve(code)));
  const timer = setTimeout(() => child.kill("SIGKILL"), TIMEOUT_MS);
  try {
    child.stdin.write(Buffer.alloc(4)); // an empty InputConfig: length 0
    const { port, apiKey } = await readOutputConfig(child.stdout);
    const socket = new WebSocket(`ws://127.0.0.1:${port}/`, { headers: { "x-goog-api-key": apiKey } });
    await new Promise((resolve, reject) => {
      socket.once("open", () => socket.send(INIT_FRAME));
      socket.once("message", resolve);
      socket.once("error", reject);
    });
    socket.close();
    child.stdin.end();
    const code = await exited;
    if (code !== 0 || !existsSync(cacheFile))
      throw new Error(`the harness exited with ${code} and wrote no code cache:\n${stderr}`);
  } catch (error) {
    child.kill("SIGKILL");
    throw new Error(`write-harness-code-cache: ${error.message}\n${stderr}`);
  } finally {
    clearTimeout(timer);
    rmSync(workspace, { recursive: true, force: true });
  }
}

/**
 * Reads the u32-LE length-prefixed `OutputConfig{port = 1, api_key = 2}` (protocol §3). By hand,
 * not with the SDK's `decodeHandshakeOutput`: `npm pack` of the harness (scripts/prepack.mjs,
 * `BUILD_ONLY=harness`) builds it where the SDK's dist may not be built yet.
 */
function readOutputConfig(stdout) {
  return new Promise((resolve, reject) => {
    let bytes = Buffer.alloc(0);
    stdout.on("data", (chunk) => {
      bytes = Buffer.concat([bytes, chunk]);
      if (bytes.length < 4 || bytes.length < 4 + bytes.readUInt32LE(0)) return;
      const message = bytes.subarray(4, 4 + bytes.readUInt32LE(0));
      const fields = {};
      try {
        for (let at = 0; at < message.length; ) {
          const [tag, afterTag] = varint(message, at);
          const [value, afterValue] = varint(message, afterTag);
          if (tag === 1 << 3) [fields.port, at] = [value, afterValue];
          else if (tag === ((2 << 3) | 2))
            [fields.apiKey, at] = [
              message.subarray(afterValue, afterValue + value).toString("utf8"),
              afterValue + value,
            ];
          else throw new Error(`unexpected OutputConfig field tag ${tag}`);
        }
      } catch (error) {
        reject(error); // a truncated varint too: thrown in this 'data' listener, it would be uncaught
        return;
      }
      resolve(fields);
    });
    stdout.once("end", () => reject(new Error("stdout closed before the OutputConfig")));
  });
}

function varint(bytes, start) {
  let value = 0;
  let shift = 0;
  let at = start;
  for (;;) {
    const byte = bytes[at++];
    if (byte === undefined) throw new Error("truncated varint");
    value += (byte & 0x7f) * 2 ** shift;
    if (byte < 0x80) return [value, at];
    shift += 7;
  }
}
