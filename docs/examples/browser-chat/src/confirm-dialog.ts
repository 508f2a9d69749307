import type { ToolCall } from "@antigravity-ts/sdk";

/**
 * Asks the user, in the page's `<dialog id="confirm">`, whether a command may run. Resolves
 * `true` for Allow, `false` for Deny or Escape. Used as the ASK_USER handler of the run_command
 * policy, so the harness waits for the answer before running anything.
 */
export function confirmInDialog(call: ToolCall): Promise<boolean> {
  const dialog = document.querySelector<HTMLDialogElement>("#confirm");
  const command = document.querySelector<HTMLElement>("#confirm-command");
  if (dialog === null || command === null) return Promise.resolve(false);
  command.textContent = describeCommand(call.args);
  dialog.returnValue = "";
  return new Promise<boolean>((resolve) => {
    dialog.addEventListener("close", () => resolve(dialog.returnValue === "allow"), { once: true });
    dialog.showModal();
  });
}

/** The command line of a run_command call, whatever casing the model used for its argument. */
function describeCommand(args: unknown): string {
  if (typeof args === "object" && args !== null) {
    const record = args as Record<string, unknown>;
    const line = record["CommandLine"] ?? record["command_line"] ?? record["commandLine"] ?? record["command"];
    if (typeof line === "string") return line;
  }
  return JSON.stringify(args, null, 2);
}
