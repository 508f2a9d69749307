// Starts the built reference harness as a real child process for the Deno suite:
// `ANTIGRAVITY_API_KEY=<random> node packages/harness/dist/bin.cjs --listen 127.0.0.1:0`, ready once it prints
// `listening on ws://HOST:PORT/` to stderr. Node comes from $NODE_BINARY (set by scripts/test-all.mjs)
// or PATH.

/** A running harness; `stop()` kills it and waits for the exit. */
export interface ListeningHarness {
  url: string;
  apiKey: string;
  stderr(): string;
  stop(): Promise<void>;
}

const root = new URL("../../", import.meta.url);

export async function startListeningHarness(
  options: { timeoutMs?: number; args?: string[] } = {},
): Promise<ListeningHarness> {
  const apiKey = `key-${crypto.randomUUID()}`;
  const node = Deno.env.get("NODE_BINARY") ?? "node";
  const bin = new URL("packages/harness/dist/bin.cjs", root);
  const child = new Deno.Command(node, {
    args: [bin.pathname, "--listen", "127.0.0.1:0", ...(options.args ?? [])],
    env: { ANTIGRAVITY_API_KEY: apiKey },
    cwd: root.pathname,
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();

  let stderr = "";
  let exited = false;
  const status = child.status.then((s) => {
    exited = true;
    return s;
  });
  const stop = async (): Promise<void> => {
    if (!exited) {
      try {
        child.kill("SIGKILL");
      } catch {
        // already gone
      }
    }
    await status;
  };

  // Keep draining stderr for the whole life of the child, so it never blocks on a full pipe.
  const reader = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
  let onLine: ((url: string) => void) | undefined;
  const drained = (async () => {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      stderr += value;
      const match = /listening on ((?:ws|http):\/\/\S+)/.exec(stderr); // ws:// (localharness) or http:// (--interactions-api)
      if (match?.[1] !== undefined) onLine?.(match[1]);
    }
  })();

  let timer: number | undefined;
  try {
    const url = await Promise.race([
      new Promise<string>((resolve) => (onLine = resolve)),
      status.then((s) => Promise.reject(new Error(`the harness exited (code ${s.code}) before listening:\n${stderr}`))),
      new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`the harness did not print its listening line in time:\n${stderr}`)),
          options.timeoutMs ?? 15_000,
        );
      }),
    ]);
    return {
      url,
      apiKey,
      stderr: () => stderr,
      stop: async () => {
        await stop();
        await drained.catch(() => {});
      },
    };
  } catch (error) {
    await stop();
    await drained.catch(() => {});
    throw error;
  } finally {
    clearTimeout(timer);
  }
}
