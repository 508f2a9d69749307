import type { ScriptFile } from "./script-format.js";

/** The line every demo answer starts with, so nobody mistakes the demo for a real model. */
export const DEMO_NOTICE = "(scripted demo model — set GEMINI_API_KEY for a real one)";

/**
 * The built-in script of the scripted model: shows every feature of the quick start offline.
 *
 * - A prompt containing the word "run" runs `echo hello` with run_command (a confirmation demo
 *   when the policy asks the user about run_command, or in INTERACTIVE mode).
 * - Any other prompt: thinking, streamed text, `list_directory` of the workspace, a call of the
 *   FIRST client tool the client declared (`$client`, with arguments built from its JSON schema's
 *   required properties: strings "demo", numbers 2, 3, …), then an answer quoting the results and,
 *   when `finishToolSchemaJson` is set, `finish` with structured output built from that schema.
 *
 * Tools the session does not offer are skipped (`ifAvailable`).
 */
export const DEMO_SCRIPT: ScriptFile = {
  turns: [
    {
      regex: "\\brun\\b",
      calls: [
        {
          thinking: "The user wants me to run something. I'll run a harmless command, echo hello, with run_command.",
          text: `${DEMO_NOTICE}\nI'll run \`echo hello\` in the workspace.`,
          toolCalls: [{ name: "run_command", args: { CommandLine: "echo hello" }, ifAvailable: true }],
        },
        {
          text: "run_command returned {{result}}",
          toolCalls: [{ name: "finish", args: "$fromSchema", ifAvailable: true }],
        },
      ],
    },
    {
      calls: [
        {
          thinking: "The user said: “{{prompt}}”. I am the scripted demo model, so I will show what a turn can do: look at the workspace, call a tool the client declared, then answer.",
          text: `${DEMO_NOTICE}\nLet me look at the workspace and try the tools you gave me.`,
          toolCalls: [
            { name: "list_directory", args: { directory_path: "." }, ifAvailable: true },
            { name: "$client", args: "$fromSchema", ifAvailable: true },
          ],
        },
        {
          text: "Here is what I found. Workspace entries: {{results.list_directory.count}}. Your tool's answer: {{results.$client}}. That is all this demo model can do; connect a real model for real answers.",
          toolCalls: [{ name: "finish", args: "$fromSchema", ifAvailable: true }],
        },
      ],
    },
  ],
};
