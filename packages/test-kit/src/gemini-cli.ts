import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

// A real third-party ACP agent, offline: Gemini CLI 0.61 (`gemini --acp`) answering from canned
// model responses (`--fake-responses FILE`, strict order; lines `{"method", "response"}` of its
// FakeContentGenerator), a fake GEMINI_API_KEY and a scratch HOME (reference/wires.md §2).

/** Gemini CLI's bundled entry point (run under this Node). */
export const GEMINI_CLI = join(
  dirname(createRequire(import.meta.url).resolve("@google/gemini-cli/package.json")),
  "bundle",
  "gemini.js",
);

/** The router call Gemini CLI makes before every prompt, answered with "flash". */
export const GEMINI_ROUTER = {
  method: "generateContent",
  response: {
    candidates: [
      {
        content: { role: "model", parts: [{ text: '{"reasoning":"simple","model_choice":"flash"}' }] },
        finishReason: "STOP",
      },
    ],
  },
};

/** A streamed model call answering with `responses` (GenerateContentResponse chunks). */
export const geminiStream = (...responses: unknown[]) => ({ method: "generateContentStream", response: responses });

/** A GenerateContentResponse chunk of text. */
export const geminiText = (text: string, extra: Record<string, unknown> = {}) => ({
  candidates: [{ content: { role: "model", parts: [{ text }] }, ...extra }],
});

/** A chunk's usageMetadata. */
export const geminiUsage = (prompt: number, candidates: number) => ({
  usageMetadata: { promptTokenCount: prompt, candidatesTokenCount: candidates, totalTokenCount: prompt + candidates },
});

/** A scratch Gemini CLI: its HOME and workspace, its fake responses file, and `acpAgent`'s options for it. */
export interface GeminiScratch {
  root: string;
  workspace: string;
  /** The fake responses file; unique per scratch, so it also marks the agent's processes. */
  fake: string;
  /** The API key it runs with (fake). */
  apiKey: string;
  options: {
    command: string;
    args: string[];
    env: Record<string, string>;
    cwd: string;
    initializeTimeoutMs: number;
  };
  /** Removes the scratch directory. */
  remove(): void;
}

/** Makes a scratch Gemini CLI answering the model calls with `lines`, in order. */
export function geminiScratch(
  lines: unknown[],
  extraArgs: string[] = [],
  apiKey = "fake-key-for-tests",
): GeminiScratch {
  const root = mkdtempSync(join(tmpdir(), "acp-gemini-"));
  const home = join(root, "home");
  const workspace = join(root, "ws");
  mkdirSync(home);
  mkdirSync(workspace);
  const fake = join(root, "fake.ndjson");
  writeFileSync(fake, `${lines.map((line) => JSON.stringify(line)).join("\n")}\n`);
  const env = { PATH: process.env["PATH"] ?? "", HOME: home, GEMINI_API_KEY: apiKey, NO_COLOR: "1" };
  return {
    root,
    workspace,
    fake,
    apiKey,
    options: {
      command: GEMINI_CLI,
      args: ["--acp", "--fake-responses", fake, ...extraArgs],
      env,
      cwd: workspace,
      initializeTimeoutMs: 90_000,
    },
    remove: () => rmSync(root, { recursive: true, force: true }),
  };
}

/**
 * Every chat recording Gemini CLI wrote under the scratch HOME (`session-*.json[l]` below
 * `.gemini/tmp`), joined: what it sent its model (the user's parts, `functionResponse`s) as it
 * recorded them, for a test to check what reached the model.
 */
export function geminiSessionText(scratch: Pick<GeminiScratch, "root">): string {
  const found: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (/^session-.*\.jsonl?$/.test(entry.name)) found.push(readFileSync(full, "utf8"));
    }
  };
  walk(join(scratch.root, "home"));
  return found.join("\n");
}
