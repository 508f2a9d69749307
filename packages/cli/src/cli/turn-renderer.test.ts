import { describe, expect, it } from "vitest";
import { StepStatus, StepTarget, StepType } from "@antigravity-ts/sdk";
import { mockStep } from "@antigravity-ts/sdk/testing";
import { TurnRenderer } from "./turn-renderer.js";

function output(isTTY: boolean): { write(text: string): boolean; text(): string; isTTY: boolean } {
  let text = "";
  return { write: (chunk: string) => ((text += chunk), true), text: () => text, isTTY };
}

const call = { id: "call-1", name: "get_weather", args: { city: "Paris" } };

describe("TurnRenderer", () => {
  it("prints thoughts, text and one line per tool call when stdout is not a TTY", () => {
    const out = output(false);
    const renderer = new TurnRenderer(out);
    renderer.onStep(
      mockStep({ stepIndex: 1, thinkingDelta: "Let me think.", status: StepStatus.Active, type: StepType.Thinking }),
    );
    renderer.onStep(mockStep({ stepIndex: 2, contentDelta: "Looking it up.", status: StepStatus.Active }));
    // The harness's customTool step and the SDK's synthetic step of the same call (§7, §18).
    renderer.onStep(
      mockStep({ stepIndex: 3, toolCalls: [call], status: StepStatus.Active, target: StepTarget.Environment }),
    );
    renderer.onStep(
      mockStep({
        id: "call-1",
        stepIndex: 50_000,
        toolCalls: [call],
        status: StepStatus.Active,
        target: StepTarget.Environment,
      }),
    );
    renderer.onStep(
      mockStep({
        id: "call-1",
        stepIndex: 50_000,
        toolCalls: [{ ...call, args: { temperatureC: 21 } }],
        content: '{"temperatureC":21}',
        status: StepStatus.Done,
        target: StepTarget.Environment,
      }),
    );
    renderer.onStep(
      mockStep({ stepIndex: 3, toolCalls: [call], status: StepStatus.Done, target: StepTarget.Environment }),
    );
    renderer.onStep(
      mockStep({
        stepIndex: 4,
        toolCalls: [{ id: "4", name: "run_command", args: {} }],
        status: StepStatus.Error,
        error: "denied by policy",
        target: StepTarget.Environment,
      }),
    );
    renderer.onStep(mockStep({ stepIndex: 5, contentDelta: "Sunny.", status: StepStatus.Done }));
    renderer.finish();
    expect(out.text()).toBe(
      [
        "thinking: Let me think.",
        "Looking it up.",
        '… get_weather({"city":"Paris"})',
        '✔ get_weather({"city":"Paris"}) → {"temperatureC":21}',
        "✖ run_command(): denied by policy",
        "Sunny.",
        "",
      ].join("\n"),
    );
  });

  it("draws a spinner for a running tool on a TTY, clears it when the tool is done, and dims thoughts", () => {
    const out = output(true);
    const renderer = new TurnRenderer(out, { color: true });
    renderer.onStep(
      mockStep({ stepIndex: 1, thinkingDelta: "hmm", status: StepStatus.Active, type: StepType.Thinking }),
    );
    renderer.onStep(
      mockStep({ stepIndex: 2, toolCalls: [call], status: StepStatus.Active, target: StepTarget.Environment }),
    );
    const whileRunning = out.text();
    renderer.onStep(
      mockStep({ stepIndex: 2, toolCalls: [call], status: StepStatus.Done, target: StepTarget.Environment }),
    );
    renderer.finish();
    expect(whileRunning).toContain("\x1b[2mhmm\x1b[0m");
    expect(whileRunning).toContain('\r\x1b[2K⠋ get_weather({"city":"Paris"})');
    expect(out.text().slice(whileRunning.length)).toBe('\r\x1b[2K\x1b[32m✔\x1b[0m get_weather({"city":"Paris"})\n');
  });

  it("separates the text of two model calls that no tool line divides, and keeps one call's deltas together", () => {
    const out = output(false);
    const renderer = new TurnRenderer(out);
    renderer.onStep(mockStep({ stepIndex: 1, contentDelta: "Let me ", status: StepStatus.Active }));
    renderer.onStep(mockStep({ stepIndex: 1, contentDelta: "check.", status: StepStatus.Done }));
    // A tool step without a call to show (nothing printed) between the two model calls.
    renderer.onStep(
      mockStep({ stepIndex: 2, status: StepStatus.Done, target: StepTarget.Environment, type: StepType.ToolCall }),
    );
    renderer.onStep(mockStep({ stepIndex: 3, contentDelta: "It is sunny.", status: StepStatus.Done }));
    renderer.onStep(
      mockStep({ stepIndex: 4, thinkingDelta: "More?", status: StepStatus.Done, type: StepType.Thinking }),
    );
    renderer.onStep(mockStep({ stepIndex: 5, thinkingDelta: "No.", status: StepStatus.Done, type: StepType.Thinking }));
    renderer.finish();
    expect(out.text()).toBe("Let me check.\n\nIt is sunny.\nthinking: More?\nthinking: No.\n");
  });

  it("holds all output while a question waits, with no spinner, and writes it once released", () => {
    const out = output(true);
    const renderer = new TurnRenderer(out, { color: false });
    renderer.onStep(mockStep({ stepIndex: 1, contentDelta: "Running it", status: StepStatus.Active }));
    renderer.hold();
    const atQuestion = out.text();
    renderer.onStep(
      mockStep({ stepIndex: 2, toolCalls: [call], status: StepStatus.Active, target: StepTarget.Environment }),
    );
    renderer.note("[harness] log line");
    expect(out.text()).toBe(atQuestion);
    renderer.release();
    renderer.finish();
    expect(atQuestion).toBe("Running it\n");
    expect(out.text()).toBe('Running it\n… get_weather({"city":"Paris"})\n[harness] log line\n');
  });

  it("prints the usage of the turn and the session", () => {
    const out = output(false);
    const usage = {
      promptTokenCount: 10,
      candidatesTokenCount: 5,
      thoughtsTokenCount: 2,
      cachedContentTokenCount: 0,
      totalTokenCount: 17,
    };
    new TurnRenderer(out).usage(usage, usage);
    expect(out.text()).toBe(
      "tokens: this turn 10 in · 5 out · 2 thinking · 17 total; session 10 in · 5 out · 2 thinking · 17 total\n",
    );
  });
});
