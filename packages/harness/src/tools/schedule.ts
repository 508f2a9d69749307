import { parseCron } from "./tasks/cron.js";
import { MAX_DELAY_SECONDS } from "./tasks/task-board.js";
import { stringArg } from "./args.js";
import { ToolError, defineBuiltinTool, objectSchema, param } from "./tool.js";

/**
 * `schedule` (switch `schedule`, HarnessSideTools.schedule = 17; upstream `BuiltinTools.SCHEDULE`:
 * "Schedule a one-shot timer or recurring cron job", types.py @4bfe2531). Args: `prompt` (what the
 * agent is told when it fires), and `delay_seconds` (one shot, 1 s to 7 days) or `cron` (five
 * fields, the harness's local time, tasks/cron.ts). A real timer of the session (tasks/task-board.ts):
 * when it fires, `[scheduled task task-N: description] prompt` reaches the conversation as an
 * automated trigger. Timers end with the session. The argument names are ours: upstream's harness
 * does not publish the tool's schema.
 */
export const scheduleTool = defineBuiltinTool({
  name: "schedule",
  toolSwitch: "schedule",
  description:
    "Set a timer: after delay_seconds, or on a cron schedule, the prompt comes back to you as a message of its own. Use manage_task to list or cancel timers.",
  parameters: objectSchema(
    {
      prompt: param("string", "What to tell yourself when the timer fires."),
      delay_seconds: param("integer", `One-shot timer: seconds from now (1 to ${MAX_DELAY_SECONDS}).`),
      cron: param(
        "string",
        'Recurring: five cron fields, minute hour day-of-month month day-of-week (e.g. "0 9 * * 1-5").',
      ),
      description: param("string", "A short name for the task."),
    },
    ["prompt"],
  ),
  describe: () => ({}),
  async run(args, context) {
    const prompt = stringArg(args, "prompt");
    if (prompt.trim() === "") throw new ToolError("prompt must not be empty");
    if (prompt.length > 4096) throw new ToolError("prompt must be at most 4096 characters");
    const description = stringArg(args, "description", "").slice(0, 200);
    const delay = args["delay_seconds"];
    const cron = args["cron"];
    const hasDelay = delay !== undefined && delay !== null;
    const hasCron = cron !== undefined && cron !== null && cron !== "";
    if (hasDelay === hasCron) throw new ToolError("give exactly one of delay_seconds (one shot) and cron (recurring)");
    try {
      if (hasCron)
        return {
          action: {},
          response: context.tasks.schedule(prompt, { cron: parseCron(stringArg(args, "cron")) }, description),
        };
      const seconds = typeof delay === "string" && delay.trim() !== "" ? Number(delay) : delay;
      if (typeof seconds !== "number" || !Number.isInteger(seconds) || seconds < 1 || seconds > MAX_DELAY_SECONDS)
        throw new ToolError(`delay_seconds must be a whole number of seconds from 1 to ${MAX_DELAY_SECONDS}`);
      return { action: {}, response: context.tasks.schedule(prompt, { delaySeconds: seconds }, description) };
    } catch (error) {
      throw error instanceof ToolError ? error : new ToolError((error as Error).message);
    }
  },
});
