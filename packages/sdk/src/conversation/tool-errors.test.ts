import { stepUpdateFromJson } from "@antigravity-ts/test-kit";
import { describe, expect, it } from "vitest";
import { stepFromUpdate } from "../mapping/step-from-update.js";
import { StepStatus } from "../step.js";
import { createMockConnection } from "../testing/index.js";
import { stepToChunks } from "./chunks.js";
import { Conversation } from "./conversation.js";

// Issue 25 item 3, upstream 0.1.19 (CHANGELOG.md, Stars1233 @1493021c): "Tool failures and hook
// denials leaked error strings into assistant text responses and aborted sibling calls; failed
// operations are now preserved as step-level tool errors." A harness that writes a failed tool's
// message as that step's text (and text delta) must not put it into the assistant's text.

const T = "t";
const failedCommand = stepUpdateFromJson({
  trajectoryId: T,
  stepIndex: 2,
  state: "STATE_ERROR",
  source: "SOURCE_MODEL",
  target: "TARGET_USER",
  runCommand: { commandLine: "rm -rf /", workingDir: "/w" },
  text: "denied by the PRE_TOOL hook: not here",
  textDelta: "denied by the PRE_TOOL hook: not here",
});
const siblingRead = stepUpdateFromJson({
  trajectoryId: T,
  stepIndex: 3,
  state: "STATE_DONE",
  source: "SOURCE_MODEL",
  target: "TARGET_USER",
  viewFile: { absolutePathUri: "file:///w/a.txt", content: "A" },
});
const answer = (stepIndex: number, text: string) =>
  stepUpdateFromJson({
    trajectoryId: T,
    stepIndex,
    state: "STATE_DONE",
    source: "SOURCE_MODEL",
    target: "TARGET_USER",
    text,
    textDelta: text,
  });

describe("a failed tool step", () => {
  it("keeps the failure as its error and gives no text chunk; its call is still a chunk", () => {
    const step = stepFromUpdate(failedCommand);
    expect(step.status).toBe(StepStatus.Error);
    expect(step.error).toBe("denied by the PRE_TOOL hook: not here");
    expect(stepToChunks(step, new Set()).map((chunk) => chunk.type)).toEqual(["toolCall"]);
    // The harness's own error field wins over the text.
    const both = stepFromUpdate({ ...failedCommand, errorMessage: "the real error" });
    expect(both.error).toBe("the real error");
  });

  it("stays out of the turn's text and events' text; the sibling call's result and the answer come through", async () => {
    const conversation = new Conversation(
      createMockConnection({
        turns: [
          {
            steps: [
              stepFromUpdate(answer(1, "Trying two tools. ")),
              stepFromUpdate(failedCommand),
              stepFromUpdate(siblingRead),
              stepFromUpdate(answer(4, "The file says A.")),
            ],
          },
        ],
      }),
    );
    const stream = conversation.chat("go");
    const kinds: string[] = [];
    for await (const event of stream.events()) {
      if (event.type === "text") expect(event.text).not.toContain("denied");
      if (event.type === "toolError" || event.type === "toolResult") kinds.push(`${event.type}:${event.toolCall.name}`);
    }
    expect(kinds).toEqual(["toolError:run_command", "toolResult:view_file"]);
    const response = await stream.final();
    expect(response.text).toBe("Trying two tools. The file says A.");
    expect(response.textBlocks.map((block) => block.text)).toEqual(["Trying two tools. ", "The file says A."]);
  });
});
