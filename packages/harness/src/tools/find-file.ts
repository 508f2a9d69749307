import { resolveWorkspacePath } from "../workspace-paths.js";
import { displayArg, stringArg } from "./args.js";
import type { BuiltinTool } from "./tool.js";
import { globToRegExp, walkFiles } from "./walk.js";

const MAX_RESULTS = 500;

/**
 * `find_file` (§11.1, switch `find`). Args: `{directory_path, pattern}`; a glob without `/`
 * matches file names, one with `/` matches paths relative to `directory_path`.
 */
export const findFileTool: BuiltinTool = {
  name: "find_file",
  description: "Find files and directories by glob pattern (e.g. \"*.ts\", \"src/**/test-*.js\") under a directory of the workspace.",
  parameters: {
    type: "object",
    properties: {
      directory_path: { type: "string", description: "Directory to search, e.g. \".\"." },
      pattern: { type: "string", description: "Glob: * ? ** {a,b}. Without a slash it matches names." },
    },
    required: ["directory_path", "pattern"],
  },
  enabled: (switches) => switches?.find?.enabled === true,
  describe: (args) => ({ findFile: { directoryPath: displayArg(args, "directory_path"), query: displayArg(args, "pattern") } }),
  async run(args, context) {
    const directory = await resolveWorkspacePath(context.workspace, stringArg(args, "directory_path", "."));
    const pattern = stringArg(args, "pattern");
    const regex = globToRegExp(pattern);
    const byPath = pattern.includes("/");
    const matches: string[] = [];
    let truncated = false;
    for await (const entry of walkFiles(directory, context.signal)) {
      const subject = byPath ? entry.relative : entry.relative.slice(entry.relative.lastIndexOf("/") + 1);
      if (!regex.test(subject)) continue;
      if (matches.length === MAX_RESULTS) { truncated = true; break; }
      matches.push(entry.isDirectory ? `${entry.relative}/` : entry.relative);
    }
    const output = matches.join("\n");
    return {
      action: { findFile: { directoryPath: directory, query: pattern, output } },
      response: { output, count: matches.length, ...(truncated ? { truncated } : {}) },
    };
  },
};
