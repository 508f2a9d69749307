// Child processes of scripts/consumer-suite.mjs: a command run to its end with a time limit, and
// the installed reference harness listening on a free port. Nothing outlives the suite.
import { spawn } from "node:child_process";

/**
 * Runs `command args` and resolves with `{ code, signal, timedOut, output }` (stdout and stderr
 * interleaved). After `timeoutMs` the child gets SIGKILL.
 */
export function runCommand(command, args, { cwd, env, timeoutMs = 60_000 }) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    const keep = (chunk) => (output += chunk.toString());
    child.stdout.on("data", keep);
    child.stderr.on("data", keep);
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill("SIGKILL");
    }, timeoutMs);
    child.on("error", (error) => {
      clearTimeout(timer);
      resolve({ code: -1, signal: null, timedOut, output: `${output}could not start ${command}: ${error.message}` });
    });
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      resolve({ code: code ?? -1, signal, timedOut, output });
    });
  });
}

/**
 * Starts `node <harnessBin> --listen 127.0.0.1:0 --workspace <cwd>` and resolves once it prints
 * `listening on ws://…` to stderr, with `{ url, stderr(), stop() }`. The key comes from `env`
 * (ANTIGRAVITY_API_KEY), never the command line.
 */
export function startListeningHarness(harnessBin, { cwd, env, timeoutMs = 30_000 }) {
  const child = spawn(process.execPath, [harnessBin, "--listen", "127.0.0.1:0", "--workspace", cwd], {
    cwd,
    env,
    stdio: ["ignore", "ignore", "pipe"],
  });
  const exited = new Promise((resolve) => child.once("close", resolve));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    await exited;
  };
  let stderr = "";
  return new Promise((resolve, reject) => {
    const fail = (message) => {
      clearTimeout(timer);
      void stop().then(() => reject(new Error(`${message}:\n${stderr}`)));
    };
    const timer = setTimeout(
      () => fail(`the harness printed no "listening on" line within ${timeoutMs} ms`),
      timeoutMs,
    );
    child.on("error", (error) => fail(`could not start the harness: ${error.message}`));
    child.once("exit", (code, signal) => fail(`the harness exited (${signal ?? code}) before listening`));
    child.stderr.on("data", (chunk) => {
      stderr += chunk.toString();
      const match = /listening on (ws:\/\/\S+)/.exec(stderr);
      if (match !== null) {
        clearTimeout(timer);
        child.removeAllListeners("exit");
        resolve({ url: match[1], stderr: () => stderr, stop });
      }
    });
  });
}
