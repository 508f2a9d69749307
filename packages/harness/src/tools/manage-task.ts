import { stringArg } from "./args.js";
import { ToolError, defineBuiltinTool, objectSchema, param } from "./tool.js";

const ACTIONS = ["list", "status", "cancel"];

/**
 * `manage_task` (switch `manageTask`, HarnessSideTools.manage_task = 16): the session's background
 * tasks — `schedule`'s timers and run_command's daemon commands (tasks/task-board.ts). Upstream
 * 0.1.18 turns it on whenever `run_command` or `schedule` is ("Task Management Pairing",
 * CHANGELOG.md @1493021); the harness offers it when its switch is on. Args: `action` (`list`,
 * `status` with a command's latest output, `cancel`: clears a timer or kills a command and
 * everything it started) and `task_id`. The argument names are ours.
 */
export const manageTaskTool = defineBuiltinTool({
  name: "manage_task",
  toolSwitch: "manageTask",
  description:
    "List your background tasks (timers from schedule, commands started with run_command IsDaemon), show one's status and output, or cancel one.",
  parameters: objectSchema(
    {
      action: { type: "string", enum: ACTIONS, description: "list, status or cancel." },
      task_id: param("string", "The task (status, cancel)."),
    },
    ["action"],
  ),
  describe: () => ({}),
  async run(args, context) {
    const action = stringArg(args, "action");
    if (!ACTIONS.includes(action))
      throw new ToolError(`action must be one of ${ACTIONS.join(", ")}, got ${JSON.stringify(action)}`);
    if (action === "list") return { action: {}, response: { tasks: context.tasks.list() } };
    const id = stringArg(args, "task_id");
    try {
      const task = action === "status" ? context.tasks.describe(id, true) : await context.tasks.cancel(id);
      return { action: {}, response: task };
    } catch (error) {
      throw new ToolError((error as Error).message);
    }
  },
});
