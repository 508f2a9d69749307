import {
  isSyntheticToolStep,
  StepStatus,
  StepType,
  type Step,
  type ToolCall,
  type UsageMetadata,
} from "@antigravity-ts/sdk";
import { Spinner, type CliOutput } from "./spinner.js";

/** Options of {@link TurnRenderer}. */
export interface TurnRendererOptions {
  /** Use ANSI styles (dim thoughts, colored marks). Default: the output is a TTY and `NO_COLOR` is unset. */
  color?: boolean | undefined;
}

type Mode = "none" | "thought" | "text";

/**
 * Renders a turn's steps for a person: thoughts dimmed, answer text as it streams, one line per
 * tool call with a spinner while it runs (drawn from the ACTIVE/DONE/ERROR updates of tool steps,
 * including the SDK's synthetic client-tool steps). The text of separate model calls never runs
 * together: a tool line or a blank line divides it. Without a TTY the same information is
 * printed as plain lines.
 */
export class TurnRenderer {
  readonly #out: CliOutput;
  readonly #spinner: Spinner;
  readonly #color: boolean;
  /** Tool calls seen, by call id (else step id), with the last status printed and the arguments shown. */
  readonly #tools = new Map<string, { status: StepStatus; args: string }>();
  #mode: Mode = "none";
  /** Step index of the text or thought being streamed: another step's text starts a new paragraph. */
  #streamStep = -1;
  #atLineStart = true;
  /** Output held back while the user answers a question (see {@link hold}); no spinner meanwhile. */
  #held: string[] | undefined;
  /** Waiters of {@link whenShown}, by tool call id. */
  readonly #shownWaiters = new Map<string, (() => void)[]>();

  constructor(out: CliOutput, options: TurnRendererOptions = {}) {
    this.#out = out;
    this.#spinner = new Spinner(out);
    this.#color = options.color ?? (out.isTTY === true && process.env.NO_COLOR === undefined);
  }

  /** Renders one step update. */
  onStep(step: Step): void {
    if (step.type === StepType.ToolCall) {
      this.#onToolStep(step);
      return;
    }
    if (step.thinkingDelta !== "") this.#stream("thought", step.stepIndex, step.thinkingDelta);
    if (step.contentDelta !== "" && step.type !== StepType.Finish)
      this.#stream("text", step.stepIndex, step.contentDelta);
    if (step.status === StepStatus.Error && step.error !== "") {
      this.#endLine(); // on its own line, not glued to the streamed text
      this.#mode = "none";
      this.#line(this.#style("31", `✖ ${step.error}`));
    }
  }

  /** Ends the turn's output: stops the spinner and finishes the current line. */
  finish(): void {
    this.#spinner.stop();
    this.#endLine();
    this.#mode = "none";
    this.#tools.clear();
    this.release();
  }

  /** Prints a line after the turn (notices, errors, usage). */
  note(text: string, style: "dim" | "error" | "plain" = "plain"): void {
    this.#spinner.stop();
    this.#endLine();
    this.#line(style === "dim" ? this.#style("2", text) : style === "error" ? this.#style("31", text) : text);
  }

  /**
   * Makes room for a question the caller shows (e.g. a policy asking before `run_command`): stops
   * the spinner, finishes the current line and holds back all output until {@link release}, so
   * the question is printed once and nothing is written into it or into the answer typed.
   */
  hold(): void {
    if (this.#held !== undefined) return;
    this.#spinner.stop();
    this.#endLine();
    this.#held = [];
  }

  /** Writes the output held since {@link hold} (the question has been answered). */
  release(): void {
    const held = this.#held;
    this.#held = undefined;
    if (held !== undefined && held.length > 0) this.#out.write(held.join(""));
  }

  /**
   * Resolves once the call with id `id` has been drawn (its first tool step rendered), so a
   * question about it comes after the call is on the screen; at once if it is; after `boundMs`
   * if it never comes (a question must not wait forever).
   */
  whenShown(id: string, boundMs = 2_000): Promise<void> {
    if (id === "" || this.#tools.has(id)) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, boundMs);
      const waiters = this.#shownWaiters.get(id) ?? [];
      waiters.push(() => {
        clearTimeout(timer);
        resolve();
      });
      this.#shownWaiters.set(id, waiters);
    });
  }

  #drawn(id: string): void {
    const waiters = this.#shownWaiters.get(id);
    if (waiters === undefined) return;
    this.#shownWaiters.delete(id);
    for (const wake of waiters) wake();
  }

  /** Prints the token usage of a turn and of the session. */
  usage(turn: UsageMetadata | undefined, total: UsageMetadata): void {
    const parts = (u: UsageMetadata): string =>
      `${u.promptTokenCount} in · ${u.candidatesTokenCount} out · ${u.thoughtsTokenCount} thinking · ${u.totalTokenCount} total`;
    const turnText = turn === undefined ? "" : `this turn ${parts(turn)}; `;
    this.note(`tokens: ${turnText}session ${parts(total)}`, "dim");
  }

  #onToolStep(step: Step): void {
    const call = step.toolCalls[0];
    if (call === undefined) return;
    const name = call.name;
    // A client tool shows up twice: the harness's customTool step and the SDK's synthetic steps
    // (protocol §7, §18). Both carry the call id, so one line per call.
    const key = call.id || step.id;
    const previous = this.#tools.get(key);
    if (previous?.status === step.status || isFinal(previous?.status)) return;
    const synthetic = isSyntheticToolStep(step);
    // A finished synthetic step carries the result instead of the arguments (§18).
    const args = previous?.args ?? (synthetic && step.status === StepStatus.Done ? "" : describeArgs(call));
    this.#tools.set(key, { status: step.status, args });
    this.#drawn(key);
    switch (step.status) {
      case StepStatus.Active:
        if (previous !== undefined) return;
        this.#endLine();
        this.#mode = "none";
        if (this.#out.isTTY === true && this.#held === undefined) {
          this.#spinner.start(`${name}${args}`);
          return;
        }
        this.#line(`… ${name}${args}`);
        return;
      case StepStatus.WaitingForUser:
        this.#spinner.stop();
        this.#endLine();
        this.#line(this.#style("33", `? ${name}${args} is waiting for confirmation`));
        return;
      case StepStatus.Done: {
        this.#spinner.stop();
        this.#endLine();
        const result = synthetic && step.content !== "" ? ` → ${clip(step.content, 120)}` : "";
        this.#line(`${this.#style("32", "✔")} ${name}${args}${result}`);
        this.#mode = "none";
        return;
      }
      case StepStatus.Error:
      case StepStatus.Canceled:
        this.#spinner.stop();
        this.#endLine();
        this.#line(`${this.#style("31", "✖")} ${name}${args}: ${step.error || step.status.toLowerCase()}`);
        this.#mode = "none";
        return;
      default:
        return;
    }
  }

  #stream(mode: Mode, stepIndex: number, text: string): void {
    this.#spinner.stop();
    if (this.#mode !== mode || this.#streamStep !== stepIndex) {
      // Text of another model call right after this one's (no tool line between): a blank line.
      const nextParagraph = this.#mode === "text" && mode === "text";
      this.#endLine();
      if (nextParagraph) this.#write("\n");
      if (mode === "thought") this.#write(this.#style("2", "thinking: "));
      this.#mode = mode;
      this.#streamStep = stepIndex;
    }
    this.#write(mode === "thought" ? this.#style("2", text) : text);
  }

  #write(text: string): void {
    if (text === "") return;
    if (this.#held !== undefined) this.#held.push(text);
    else this.#out.write(text);
    this.#atLineStart = text.endsWith("\n");
  }

  #line(text: string): void {
    this.#write(`${text}\n`);
  }

  #endLine(): void {
    if (!this.#atLineStart) this.#write("\n");
  }

  #style(code: string, text: string): string {
    if (!this.#color) return text;
    // Re-apply the style after each newline so multi-line thoughts stay dim.
    return `\x1b[${code}m${text.replaceAll("\n", `\x1b[0m\n\x1b[${code}m`)}\x1b[0m`;
  }
}

function describeArgs(call: ToolCall | undefined): string {
  if (call === undefined || call.args === undefined || call.args === null) return "";
  const json = JSON.stringify(call.args);
  return json === "{}" ? "()" : `(${clip(json, 80)})`;
}

function isFinal(status: StepStatus | undefined): boolean {
  return status === StepStatus.Done || status === StepStatus.Error || status === StepStatus.Canceled;
}

function clip(text: string, max: number): string {
  const flat = text.replace(/\s+/g, " ");
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}
