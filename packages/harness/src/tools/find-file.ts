import { displayArg, pathArg, stringArg } from "./args.js";
import { defineBuiltinTool, objectSchema, param } from "./tool.js";
import { walkFiles } from "./walk.js";

const MAX_RESULTS = 500;

/**
 * `find_file` (§11.1, switch `find`). Args: `{directory_path, pattern}`; a glob without `/`
 * matches file names, one with `/` matches paths relative to `directory_path` (glob.ts: linear
 * matching, no catastrophic backtracking).
 */
export const findFileTool = defineBuiltinTool({
  name: "find_file",
  toolSwitch: "find",
  description:
    'Find files and directories by glob pattern (e.g. "*.ts", "src/**/test-*.js") under a directory of the workspace.',
  parameters: objectSchema(
    {
      directory_path: param("string", 'Directory to search, e.g. ".".'),
      pattern: param("string", "Glob: * ? ** {a,b}. Without a slash it matches names."),
    },
    ["directory_path", "pattern"],
  ),
  describe: (args) => ({
    findFile: { directoryPath: displayArg(args, "directory_path"), query: displayArg(args, "pattern") },
  }),
  async run(args, context) {
    const directory = await pathArg(args, "directory_path", context.workspace, { fallback: "." });
    const pattern = stringArg(args, "pattern");
    // glob.ts pulls in re2js (~260 KB): loaded on the first call, not at harness start.
    const { compileGlob } = await import("./glob.js");
    const matches = compileGlob(pattern);
    const byPath = pattern.includes("/");
    const found: string[] = [];
    let truncated = false;
    for await (const entry of walkFiles(directory.absolute, context.signal)) {
      const subject = byPath ? entry.relative : entry.relative.slice(entry.relative.lastIndexOf("/") + 1);
      if (!matches(subject)) continue;
      if (found.length === MAX_RESULTS) {
        truncated = true;
        break;
      }
      found.push(entry.isDirectory ? `${entry.relative}/` : entry.relative);
    }
    const output = found.join("\n");
    return {
      action: { findFile: { directoryPath: directory.absolute, query: pattern, output } },
      response: { output, count: found.length, ...(truncated ? { truncated } : {}) },
    };
  },
});
