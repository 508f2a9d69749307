import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AskUserHandler, Conversation, ConversationSnapshot, StartedAgent } from "@antigravity-ts/sdk";
import { createMemoryConversationStore } from "@antigravity-ts/sdk/storage";
import type { CliOptions } from "./cli-args.js";
import {
  copyHarnessStorage,
  readConversationFile,
  restoreHarnessStorage,
  writeConversationFile,
} from "./conversation-file.js";
import { buildDemoAgent } from "./demo-agent.js";

/** Options of {@link ReplSession.start}. */
export interface ReplSessionOptions {
  cli: CliOptions;
  confirmRunCommand: AskUserHandler;
  onStderr?: (line: string) => void;
}

/**
 * The REPL's agent session, which `/clear`, `/save` and `/load` replace: every session of one
 * REPL keeps its harness storage in one temporary directory (removed by {@link stop}), so a
 * conversation saved and loaded again resumes in the harness too.
 */
export class ReplSession {
  readonly #options: ReplSessionOptions;
  readonly #saveDir: string;
  #started: StartedAgent;

  private constructor(options: ReplSessionOptions, saveDir: string, started: StartedAgent) {
    this.#options = options;
    this.#saveDir = saveDir;
    this.#started = started;
  }

  /** Starts the harness with a new conversation. */
  static async start(options: ReplSessionOptions): Promise<ReplSession> {
    const saveDir = await mkdtemp(join(tmpdir(), "antigravity-repl-"));
    try {
      return new ReplSession(options, saveDir, await startAgent(options, saveDir));
    } catch (error) {
      await rm(saveDir, { recursive: true, force: true });
      throw error;
    }
  }

  get conversationId(): string {
    return this.#started.conversationId;
  }

  /** The running session's conversation. */
  conversation(): Conversation {
    return this.#started.conversation();
  }

  /** Ends the session and starts one with a new conversation; resolves its id. */
  async newConversation(): Promise<string> {
    await this.#started.stop();
    this.#started = await startAgent(this.#options, this.#saveDir);
    return this.#started.conversationId;
  }

  /**
   * Writes the conversation's snapshot to `file` and the harness's storage to `<file>.harness`
   * (the harness has written all of its session once stopped, so the session is restarted on the
   * same conversation). Resolves the absolute path and the snapshot.
   */
  async save(file: string): Promise<{ path: string; snapshot: ConversationSnapshot }> {
    const snapshot = await this.#started.conversation().snapshot();
    const path = await writeConversationFile(file, snapshot);
    await this.#started.stop();
    try {
      await copyHarnessStorage(this.#saveDir, path);
    } finally {
      this.#started = await startAgent(this.#options, this.#saveDir, snapshot);
    }
    return { path, snapshot };
  }

  /**
   * Ends the session and continues the conversation saved in `file` (with its harness storage,
   * when saved beside it). `modelHasContext` is false when the harness had no record of the
   * conversation: its history and usage are back, the model's context is not. When the saved
   * conversation cannot be continued, a new one starts and the error is thrown.
   */
  async load(file: string): Promise<{ snapshot: ConversationSnapshot; modelHasContext: boolean }> {
    const saved = await readConversationFile(file);
    await this.#started.stop();
    try {
      if (saved.harnessStorage !== undefined) await restoreHarnessStorage(saved.harnessStorage, this.#saveDir);
      this.#started = await startAgent(this.#options, this.#saveDir, saved.snapshot);
    } catch (error) {
      this.#started = await startAgent(this.#options, this.#saveDir);
      throw error;
    }
    // The hosted agent keeps the context on Google's side: the restored conversation goes on from the
    // last interaction its history names (docs/hosted.md, the mapping), with no local storage.
    const modelHasContext =
      this.#options.cli.hosted !== undefined ||
      saved.snapshot.steps.length === 0 ||
      this.#started.connection.initialHistory.length > 0;
    return { snapshot: saved.snapshot, modelHasContext };
  }

  /** Stops the session and removes the harness storage. */
  async stop(): Promise<void> {
    try {
      await this.#started.stop();
    } finally {
      await rm(this.#saveDir, { recursive: true, force: true });
    }
  }
}

/** Starts the demo agent on `saveDir`, continuing `snapshot`'s conversation when given. */
function startAgent(
  options: ReplSessionOptions,
  saveDir: string,
  snapshot?: ConversationSnapshot,
): Promise<StartedAgent> {
  const continueConversation =
    snapshot === undefined
      ? undefined
      : {
          conversationId: snapshot.conversationId,
          store: createMemoryConversationStore({ entries: new Map([[snapshot.conversationId, snapshot]]) }),
        };
  const agent = buildDemoAgent({
    cli: options.cli,
    confirmRunCommand: options.confirmRunCommand,
    saveDir,
    continueConversation,
    onStderr: options.onStderr,
  });
  return agent.start({ timeoutMs: 60_000 });
}
