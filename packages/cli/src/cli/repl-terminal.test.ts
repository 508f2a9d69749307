import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { REPO_ROOT, ensureScriptedReferenceHarness } from "@antigravity-ts/test-kit";

// The REPL of the real `antigravity` CLI in a pseudo-terminal (util-linux `script` gives it one),
// with the bundled reference harness playing a script: what a person typing sees.

const CLI = fileURLToPath(new URL("../cli.ts", import.meta.url));
const BOUND_MS = 60_000;
/** The slow turn streams one word at a time, so a line typed after its first word arrives mid-turn. */
const SLOW_ANSWER = "one two three four five six seven eight nine ten";
const SCRIPT = {
  turns: [
    { match: "slow", calls: [{ text: SLOW_ANSWER, chunkWords: 1, chunkDelayMs: 300 }] },
    {
      match: "two commands",
      calls: [
        {
          toolCalls: [
            { name: "run_command", args: { CommandLine: "echo first" } },
            { name: "run_command", args: { CommandLine: "echo second" } },
          ],
        },
        { text: "Both asked." },
      ],
    },
    {
      match: "run",
      calls: [
        { text: "Running it.", toolCalls: [{ name: "run_command", args: { CommandLine: "echo hi" } }] },
        { text: "Ran: {{result.output}}" },
      ],
    },
    { calls: [{ text: "Answer to {{prompt}}." }] },
  ],
};

const hasScript = spawnSync("script", ["--version"]).status === 0;
let harnessPath = "";
let scratch = "";
let scriptFile = "";
beforeAll(async () => {
  harnessPath = await ensureScriptedReferenceHarness();
  scratch = await mkdtemp(join(tmpdir(), "antigravity-repl-pty-"));
  scriptFile = join(scratch, "script.json");
  await writeFile(scriptFile, JSON.stringify(SCRIPT));
}, 300_000);
afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0))
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
});

/**
 * The terminal's text as a person sees it: a line erased and redrawn (the spinner's `\r ESC[2K`,
 * readline's `ESC[1G ESC[0J`) loses what was drawn on it, other control sequences are dropped, CR…LF is LF.
 */
function screenText(raw: string): string {
  return raw
    .replace(/[^\n]*(?:\r\x1b\[2K|\x1b\[1G\x1b\[0J)/g, "")
    .replace(/\x1b\[[0-9;?]*[A-Za-z]/g, "")
    .replace(/\r+\n/g, "\n");
}

/** The CLI's REPL in a pseudo-terminal: type keys, wait for text on the screen, exit code. */
function startTerminalRepl(): {
  type(keys: string): void;
  waitFor(text: string, times?: number): Promise<void>;
  screen(): string;
  exited: Promise<number | null>;
} {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NO_COLOR: "1",
    ANTIGRAVITY_MODEL_PROVIDER: "scripted",
    ANTIGRAVITY_SCRIPT: scriptFile,
    TERM: "xterm",
  };
  for (const name of ["GEMINI_API_KEY", "ANTIGRAVITY_HARNESS_PATH"]) delete env[name];
  const command = [
    process.execPath,
    "--conditions=antigravity-source",
    "--import",
    "tsx",
    CLI,
    "--interactive",
    "--harness",
    harnessPath,
    "--workspace",
    scratch,
  ]
    .map((arg) => `'${arg.replaceAll("'", "'\\''")}'`)
    .join(" ");
  const child = spawn("script", ["-qfec", command, "/dev/null"], {
    cwd: REPO_ROOT,
    env,
    stdio: ["pipe", "pipe", "pipe"],
  });
  children.push(child);
  let raw = "";
  const waiters: { text: string; times: number; resolve: () => void }[] = [];
  const shown = (text: string, times: number): boolean => screenText(raw).split(text).length > times;
  child.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
    raw += chunk;
    for (const waiter of waiters.splice(0)) {
      if (shown(waiter.text, waiter.times)) waiter.resolve();
      else waiters.push(waiter);
    }
  });
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return {
    type: (keys) => void child.stdin?.write(keys),
    waitFor: (text, times = 1) =>
      shown(text, times)
        ? Promise.resolve()
        : new Promise<void>((resolve, reject) => {
            waiters.push({ text, times, resolve });
            void exited.then(() =>
              reject(new Error(`the REPL exited before showing ${JSON.stringify(text)}; screen:\n${screenText(raw)}`)),
            );
          }),
    screen: () => screenText(raw),
    exited,
  };
}

describe.skipIf(!hasScript)("REPL in a terminal", () => {
  it(
    "queues a prompt typed during a turn without echoing it into the answer, asks once before run_command, names the script",
    async () => {
      const repl = startTerminalRepl();
      await repl.waitFor("ready · conversation");
      repl.type("slow\r");
      await repl.waitFor("one two");
      repl.type("queued prompt\r");
      await repl.waitFor("Answer to queued prompt.");
      repl.type("please run\r");
      await repl.waitFor("[y/N]");
      repl.type("y\r");
      await repl.waitFor("Ran: hi");
      repl.type("/usage\r");
      await repl.waitFor("turns: 3");
      // A line typed partly during a turn is kept and shown at the next prompt, where typing goes on.
      repl.type("slow again\r");
      await repl.waitFor("one two", 2);
      repl.type("/hel");
      await repl.waitFor("tokens: this turn", 5);
      await repl.waitFor("› /hel");
      repl.type("p\r");
      await repl.waitFor("/load [file]");
      // Two calls in one model call: one question at a time, each answered on its own line.
      repl.type("run two commands\r");
      await repl.waitFor("[y/N]", 2);
      repl.type("y\r");
      await repl.waitFor("[y/N]", 3);
      repl.type("n\r");
      await repl.waitFor("Both asked.");
      repl.type("/exit\r");
      expect(await repl.exited).toBe(0);

      const screen = repl.screen();
      expect(screen).toContain(
        `offline scripted model playing ${scriptFile} (ANTIGRAVITY_SCRIPT; ANTIGRAVITY_MODEL_PROVIDER=scripted)`,
      );
      expect(screen).toContain(`› slow\n${SLOW_ANSWER}\ntokens: `);
      // Typed mid-turn: not on the screen until its own turn starts, then on its own prompt line.
      expect(screen.split("queued prompt")).toHaveLength(3);
      expect(screen).toMatch(/\ntokens: [^\n]*\n› queued prompt\nAnswer to queued prompt\.\n/);
      // The question once, the answer after it on that line, nothing typed inside the streamed text.
      expect(screen.split("allow run_command `echo hi`? [y/N]")).toHaveLength(2);
      // (The question may come before or after "Running it." is drawn: both reach the CLI at about the same time.)
      expect(screen).toContain("\nallow run_command `echo hi`? [y/N] y\n");
      expect(screen).toMatch(/\nRunning it\.\n/);
      expect(screen).toMatch(/✔ run_command[^\n]*\nRan: hi\n/);
      expect(screen).toContain(`› slow again\n${SLOW_ANSWER}\ntokens: `);
      expect(screen).toMatch(/\n› \/help\n\/help {11}this list\n/);
      expect(screen.split("\nallow run_command `echo first`? [y/N] y\n")).toHaveLength(2);
      expect(screen.split("\nallow run_command `echo second`? [y/N] n\n")).toHaveLength(2);
      expect(screen).toMatch(/\n✔ run_command\(\{"CommandLine":"echo first"/);
      expect(screen).toMatch(/\n✖ run_command\(\{"CommandLine":"echo second"[^\n]*denied by policy/);
    },
    BOUND_MS,
  );

  it(
    "a turn halted with Ctrl-C shows the same answer as /history (issue 26 item 7: the words the harness sent until its halt)",
    async () => {
      const repl = startTerminalRepl();
      await repl.waitFor("ready · conversation");
      repl.type("slow\r");
      await repl.waitFor("one two three");
      repl.type("\x03"); // Ctrl-C: halt the turn
      await repl.waitFor("(turn halted)");
      repl.type("/history\r");
      await repl.waitFor("1 › slow");
      await repl.waitFor("› ", 3);
      repl.type("/exit\r");
      expect(await repl.exited).toBe(0);
      const screen = repl.screen();
      const shown = /› slow\n([^\n]*)\n(?:[^\n]*\n)*?\(turn halted\)/.exec(screen)?.[1]?.trim();
      const history = /1 › slow\n {2}([^\n]*)\n/.exec(screen)?.[1]?.trim();
      expect(shown, screen).toBeDefined();
      expect(shown?.startsWith("one two three")).toBe(true);
      expect(shown).toBe(history);
    },
    BOUND_MS,
  );
});
