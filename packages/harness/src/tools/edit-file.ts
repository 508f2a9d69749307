import { displayArg, pathArg } from "./args.js";
import { editRequest, planEdit } from "./edit-plan.js";
import { editTextFile } from "./text-file.js";
import { defineBuiltinTool, objectSchema, param } from "./tool.js";

/**
 * `edit_file` (§11.1, switch `fileEdit`): exact string replacement. Args: `{file_path,
 * old_string, new_string, replace_all?}`; `old_string` must occur exactly once unless
 * `replace_all`. The step carries one diff block per group of replacements sharing a line (§11.2);
 * edit-plan.ts plans the edit in linear time.
 */
export const editFileTool = defineBuiltinTool({
  name: "edit_file",
  toolSwitch: "fileEdit",
  description:
    "Edit a text file in the workspace by replacing old_string with new_string. old_string must match exactly once (include surrounding lines to make it unique) unless replace_all is true.",
  parameters: objectSchema(
    {
      file_path: param("string", "File to edit."),
      old_string: param("string", "Exact text to replace."),
      new_string: param("string", "Replacement text."),
      replace_all: param("boolean", "Replace every occurrence."),
    },
    ["file_path", "old_string", "new_string"],
  ),
  describe: (args) => ({ editFile: { filePath: displayArg(args, "file_path") } }),
  async run(args, context) {
    // The last name is not resolved: a symlink there is refused, not followed, and the file read
    // is the file written (one descriptor, workspace-fs.ts).
    const { absolute: file, shown } = await pathArg(args, "file_path", context.workspace, { writeTarget: true });
    const request = editRequest(args, shown);
    const plan = await editTextFile(context.workspace, file, shown, (original) => planEdit(original, request));
    const diffNote = plan.diffComplete ? "" : ` (the step's diff shows the first ${plan.blocks.length} blocks)`;
    const summary = `edited ${shown}: replaced ${plan.count} occurrence${plan.count === 1 ? "" : "s"}${diffNote}`;
    return { action: { editFile: { filePath: file, diffBlock: plan.blocks } }, response: { summary } };
  },
});
