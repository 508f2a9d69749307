import type { ScriptCall, ScriptFile } from "./script-format.js";

/** The line every demo answer starts with, so nobody mistakes the demo for a real model. */
export const DEMO_NOTICE = "(scripted demo model — set GEMINI_API_KEY for a real one)";

/**
 * "weather … in <Place>": the place (a word, then capitalised words: "Tokyo", "New York",
 * "São Paulo") as the named group `city`. Case-sensitive (flag `u` only) so the capitals end it.
 */
const PLACE_AFTER_WEATHER_WORD = String.raw`(?:[Ww]eather|[Tt]emperature|[Ff]orecast)\b[^.?!]*?\b(?:in|for|at)\s+(?<city>\p{L}[\p{L}'\u2019.-]*(?:[ -]\p{Lu}[\p{L}'\u2019.-]*)*)`;

/** A prompt not about running something: look at the workspace, call the client's first tool, answer quoting both. */
const LOOK_AND_ANSWER: ScriptCall[] = [
  {
    thinking:
      "The user said: “{{prompt}}”. I am the scripted demo model, so I will show what a turn can do: look at the workspace, call a tool the client declared, then answer.",
    text: `${DEMO_NOTICE}\nLet me look at the workspace and try the tools you gave me.`,
    toolCalls: [
      // find_file is a default built-in (upstream 0.1.19's BuiltinTools.default() dropped list_directory).
      { name: "find_file", args: { directory_path: ".", pattern: "*" }, ifAvailable: true },
      { name: "$client", args: "$fromSchema", ifAvailable: true },
    ],
  },
  {
    // Sections: a tool the session does not offer is not reported as "n/a".
    text: "Here is what I found.{{#results.find_file}} Workspace entries found: {{results.find_file.count}}.{{/results.find_file}}{{#results.find_file.truncated}} (find_file stops at 500 names.){{/results.find_file.truncated}}{{#results.$client}} Your tool's answer: {{results.$client}}.{{/results.$client}} That is all this demo model can do; connect a real model for real answers.",
    toolCalls: [{ name: "finish", args: "$fromSchema", ifAvailable: true }],
  },
];

/**
 * The built-in script of the scripted model: shows every feature of the quick start offline.
 *
 * - A prompt containing the word "run" runs `echo hello` with run_command (a confirmation demo
 *   when the policy asks the user about run_command, or in INTERACTIVE mode).
 * - Any other prompt: thinking, streamed text, `find_file` of every entry under the workspace
 *   (skipping `.git` and `node_modules`, at most 500 names), a call of the
 *   FIRST client tool the client declared (`$client`, with arguments built from its JSON schema's
 *   required properties: strings "demo", numbers 2, 3, …), then an answer quoting the results and,
 *   when `finishToolSchemaJson` is set, `finish` with structured output built from that schema.
 *   A prompt asking about the weather in a place passes that place as the tool's `city`
 *   argument when its schema has one.
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
    // A place named after a weather word ("the weather like in Tokyo") fills the client tool's
    // `city` argument, so a weather tool is asked about the city the user asked about.
    { regex: PLACE_AFTER_WEATHER_WORD, flags: "u", calls: LOOK_AND_ANSWER },
    { calls: LOOK_AND_ANSWER },
  ],
};
