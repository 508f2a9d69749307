import { boolArg, displayArg, pathArg, stringArg } from "./args.js";
import { MAX_TEXT_FILE_BYTES, looksBinary } from "./text-file.js";
import { defineBuiltinTool, objectSchema, param } from "./tool.js";
import { walkFiles } from "./walk.js";

const MAX_MATCHES = 200;
const MAX_LINE = 300;

/**
 * `search_directory` (§11.1, switch `grepSearch`): grep. Args: `{directory_path, query,
 * is_regex?, case_insensitive?}`. The grep output goes in the step's `text` (§11.2).
 */
export const searchDirectoryTool = defineBuiltinTool({
  name: "search_directory",
  toolSwitch: "grepSearch",
  description:
    "Search the text files under a directory of the workspace for a string or regular expression; returns path:line: text matches.",
  parameters: objectSchema(
    {
      directory_path: param("string", 'Directory to search, e.g. ".".'),
      query: param("string", "Text to find (or a regular expression when is_regex is true)."),
      is_regex: param(
        "boolean",
        "Treat query as a regular expression in RE2 syntax (as ripgrep: no lookaround or backreferences).",
      ),
      case_insensitive: param("boolean", "Ignore case."),
    },
    ["directory_path", "query"],
  ),
  describe: (args) => ({
    searchDirectory: { directoryPath: displayArg(args, "directory_path"), query: displayArg(args, "query") },
  }),
  async run(args, context) {
    const directory = (await pathArg(args, "directory_path", context.workspace, { fallback: "." })).absolute;
    const query = stringArg(args, "query");
    // search-pattern.ts pulls in re2js (~260 KB): loaded on the first call, not at harness start.
    const { compileSearchQuery } = await import("./search-pattern.js");
    const matcher = compileSearchQuery(query, {
      isRegex: boolArg(args, "is_regex"),
      caseInsensitive: boolArg(args, "case_insensitive"),
    });
    const lines: string[] = [];
    let truncated = false;
    outer: for await (const entry of walkFiles(directory, context.signal)) {
      if (entry.isDirectory) continue;
      // Read through the walk's held directory: regular files only, never a swapped-in link.
      const bytes = await entry.readFile(MAX_TEXT_FILE_BYTES).catch(() => undefined);
      if (bytes === undefined || bytes.length > MAX_TEXT_FILE_BYTES || looksBinary(bytes)) continue;
      const fileLines = bytes.toString("utf8").split("\n");
      for (let i = 0; i < fileLines.length; i++) {
        const line = fileLines[i] as string;
        if (!matcher.test(line)) continue;
        if (lines.length === MAX_MATCHES) {
          truncated = true;
          break outer;
        }
        lines.push(`${entry.relative}:${i + 1}: ${line.length > MAX_LINE ? `${line.slice(0, MAX_LINE)}…` : line}`);
      }
    }
    const output = lines.join("\n");
    return {
      action: { searchDirectory: { directoryPath: directory, query, numResults: lines.length } },
      text: output,
      response: {
        num_results: lines.length,
        output,
        ...(truncated ? { truncated } : {}),
        ...(matcher.cutLines > 0 ? { long_lines_searched_in_part: matcher.cutLines } : {}),
      },
    };
  },
});
