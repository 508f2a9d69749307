// The client's `terminal/*` methods (ACP "Terminals"), served for an agent when the connection has
// an `AcpTerminals` host. Method and field names: `@agentclientprotocol/sdk` 2.4's
// dist/v1/schema/types.gen.d.ts (`CreateTerminalRequest { sessionId, command, args?, env?, cwd?,
// outputByteLimit? }` → `CreateTerminalResponse { terminalId }`; `TerminalOutputRequest` →
// `TerminalOutputResponse { output, truncated, exitStatus? }`; `WaitForTerminalExitRequest` →
// `WaitForTerminalExitResponse { exitCode?, signal? }`; `KillTerminalRequest`,
// `ReleaseTerminalRequest` → `{}`) and dist/v1/stable/acp.d.ts (`methods.client.terminal.*`).
// No process is started here: the host does that (Node: `workspaceTerminals` of
// `@antigravity-ts/harness`); without one, `terminal` is not advertised and the library answers
// the methods `-32601`.
import * as acp from "@agentclientprotocol/sdk";

/** What `terminal/create` asks for, checked and normalised. */
export interface AcpTerminalRequest {
  /** `command`: with `args`, run as a POSIX shell command line (see {@link commandLineOf}). */
  readonly command: string;
  readonly args: readonly string[];
  /** `env` (`EnvVariable[]`) as a map: added to the host's base environment. */
  readonly env: Readonly<Record<string, string>>;
  /** `cwd` (absolute), or the session's cwd when the agent sends none. */
  readonly cwd: string;
  /** `outputByteLimit`, when the agent sets one: the most output kept (the start is dropped first). */
  readonly outputByteLimit: number | undefined;
}

/** `TerminalExitStatus`: the exit code, or the signal that ended the command. */
export interface AcpTerminalExit {
  readonly exitCode: number | null;
  readonly signal: string | null;
}

/** One running (or finished) command of an {@link AcpTerminals} host. */
export interface AcpTerminal {
  /** The output so far (stdout and stderr, in order), whether its start was dropped, and the exit once known. */
  output(): { output: string; truncated: boolean; exitStatus: AcpTerminalExit | undefined };
  waitForExit(): Promise<AcpTerminalExit>;
  /** Ends the command and everything it started; the output stays readable. */
  kill(): Promise<void>;
  /** {@link kill}, then forgets the output. */
  release(): Promise<void>;
}

/**
 * Runs an ACP agent's `terminal/create` commands (`acpAgent({ terminals })`; off by default). On
 * Node, `workspaceTerminals([dir])` of `@antigravity-ts/harness` runs them contained as the
 * reference harness's `run_command` is. A rejection is answered as a JSON-RPC `-32602` with its message.
 */
export interface AcpTerminals {
  create(request: AcpTerminalRequest): Promise<AcpTerminal>;
}

/** At most this many terminals of one session exist at once (released ones do not count). */
export const MAX_TERMINALS_PER_SESSION = 16;

/** The shell command line of a terminal request: `command` as given, each of `args` quoted, so `args` stay literal. */
export function commandLineOf(request: Pick<AcpTerminalRequest, "command" | "args">): string {
  return [request.command, ...request.args.map(shellQuote)].join(" ");
}

function shellQuote(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`;
}

/** What the connection lends the terminal handlers. */
export interface TerminalGate {
  /** The session's id once it exists (a request for another session is refused). */
  sessionId(): string | undefined;
  /** The session's cwd, for a request without one. */
  readonly cwd: string;
  /** Resolves when the agent's policies allow the command; rejects (with the reason) when they refuse it. */
  confirm(request: AcpTerminalRequest, terminalId: string): Promise<void>;
  /** Called once the command exits (the connection settles its step). */
  exited(terminalId: string, exit: AcpTerminalExit): void;
}

/**
 * Registers `terminal/create`, `output`, `wait_for_exit`, `kill` and `release` on `app`; each
 * names a terminal this session created (ids are per connection, so another session's
 * terminals cannot be reached). `releaseAll()` ends every terminal: the connection calls it when
 * it closes, so no command outlives it.
 */
export function serveTerminals(
  app: acp.ClientApp,
  host: AcpTerminals,
  gate: TerminalGate,
): { releaseAll(): Promise<void> } {
  const live = new Map<string, AcpTerminal>();
  let next = 0;
  let closed = false;
  const answer = async <T>(run: () => Promise<T>): Promise<T> => {
    try {
      return await run();
    } catch (error) {
      throw error instanceof acp.RequestError
        ? error
        : acp.RequestError.invalidParams(undefined, error instanceof Error ? error.message : String(error));
    }
  };
  const session = (sessionId: string): void => {
    const own = gate.sessionId();
    if (own === undefined || sessionId !== own) throw acp.RequestError.sessionNotFound(sessionId);
  };
  const terminal = (params: { sessionId: string; terminalId: string }): AcpTerminal => {
    session(params.sessionId);
    const found = live.get(params.terminalId);
    if (found === undefined) throw acp.RequestError.resourceNotFound(`terminal ${params.terminalId}`);
    return found;
  };
  app
    .onRequest(acp.methods.client.terminal.create, ({ params }) =>
      answer(async () => {
        session(params.sessionId);
        if (closed) throw new Error("the session is closed");
        if (live.size >= MAX_TERMINALS_PER_SESSION)
          throw new Error(`at most ${MAX_TERMINALS_PER_SESSION} terminals at once: release one first`);
        const request = terminalRequest(params, gate.cwd);
        const terminalId = `terminal-${++next}`;
        await gate.confirm(request, terminalId);
        if (closed) throw new Error("the session is closed");
        const created = await host.create(request);
        if (closed) {
          await created.release();
          throw new Error("the session is closed");
        }
        live.set(terminalId, created);
        void created.waitForExit().then(
          (exit) => gate.exited(terminalId, exit),
          () => undefined,
        );
        return { terminalId };
      }),
    )
    .onRequest(acp.methods.client.terminal.output, ({ params }) =>
      answer(async () => {
        const { output, truncated, exitStatus } = terminal(params).output();
        return { output, truncated, ...(exitStatus === undefined ? {} : { exitStatus }) };
      }),
    )
    .onRequest(acp.methods.client.terminal.waitForExit, ({ params }) =>
      answer(async () => {
        const exit = await terminal(params).waitForExit();
        return { exitCode: exit.exitCode, signal: exit.signal };
      }),
    )
    .onRequest(acp.methods.client.terminal.kill, ({ params }) =>
      answer(async () => {
        await terminal(params).kill();
        return {};
      }),
    )
    .onRequest(acp.methods.client.terminal.release, ({ params }) =>
      answer(async () => {
        const found = terminal(params);
        live.delete(params.terminalId);
        await found.release();
        return {};
      }),
    );
  return {
    async releaseAll() {
      closed = true;
      const all = [...live.values()];
      live.clear();
      await Promise.allSettled(all.map((t) => t.release()));
    },
  };
}

function terminalRequest(params: acp.CreateTerminalRequest, sessionCwd: string): AcpTerminalRequest {
  if (params.command.trim() === "") throw new Error("terminal/create: command must not be empty");
  const env: Record<string, string> = {};
  for (const variable of params.env ?? []) {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(variable.name))
      throw new Error(`terminal/create: ${JSON.stringify(variable.name)} is not an environment variable name`);
    env[variable.name] = variable.value;
  }
  const limit = params.outputByteLimit;
  if (limit != null && (!Number.isSafeInteger(limit) || limit < 0))
    throw new Error("terminal/create: outputByteLimit must be a non-negative integer");
  return {
    command: params.command,
    args: params.args ?? [],
    env,
    cwd: params.cwd ?? sessionCwd,
    outputByteLimit: limit ?? undefined,
  };
}
