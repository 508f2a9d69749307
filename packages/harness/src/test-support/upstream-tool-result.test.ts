import { describe, expect, it } from "vitest";
import { extractUpstreamToolResult, extractUpstreamToolResultStrict } from "./upstream-tool-result.js";

// The cases of upstream's hook_router_test.py (HookRouterPostToolExtractionTest), so the port
// reads results exactly as upstream's client does.
describe("extractUpstreamToolResult (upstream event_processor._extract_tool_result)", () => {
  it("parses each structured built-in like upstream's tests", () => {
    expect(extractUpstreamToolResult("run_command", '{"combined_output": "hi\\n"}')).toEqual({ output: "hi\n" });
    expect(extractUpstreamToolResult("list_directory", '{"results": [{"name": "foo.py", "file_size": 100}]}')).toEqual({
      entries: [{ name: "foo.py", is_directory: false, file_size: 100 }],
    });
    expect(extractUpstreamToolResult("find_file", '{"output": "/tmp/a.txt"}')).toEqual({ output: "/tmp/a.txt" });
    expect(extractUpstreamToolResult("search_directory", '{"num_results": 5}')).toEqual({ num_results: 5 });
    expect(extractUpstreamToolResult("edit_file", '{"summary": "Edited file"}')).toEqual({ summary: "Edited file" });
    expect(extractUpstreamToolResult("generate_image", '{"image_name": "cat_img"}')).toMatchObject({
      image_name: "cat_img",
    });
    expect(
      extractUpstreamToolResult("read_url_content", '{"title": "T", "summary": "S", "content_path": "/p"}'),
    ).toEqual({ title: "T", summary: "S", content_path: "/p" });
  });

  it("gives None (the raw string reaches the hook) for unstructured tools and unusable results", () => {
    expect(extractUpstreamToolResult("view_file", "Viewed file")).toBeUndefined();
    expect(extractUpstreamToolResult("invoke_subagent", "")).toBeUndefined();
    expect(extractUpstreamToolResult("list_directory", '{"results": [not valid json...')).toBeUndefined();
    expect(extractUpstreamToolResult("list_directory", '["just", "a", "list"]')).toBeUndefined();
    expect(extractUpstreamToolResult("list_directory", '{"results": null}')).toBeUndefined();
    // edit_file and find_file take unparsable text whole
    expect(extractUpstreamToolResult("edit_file", "replaced 1 occurrence")).toEqual({
      summary: "replaced 1 occurrence",
    });
    expect(extractUpstreamToolResult("find_file", "a.txt\nb.txt")).toEqual({ output: "a.txt\nb.txt" });
  });

  it("validates like pydantic's lax mode: aliases, coercions, wrong types", () => {
    expect(
      extractUpstreamToolResult(
        "list_directory",
        '{"entries": [{"name": "d", "is_directory": true, "file_size": "12"}]}',
      ),
    ).toEqual({
      entries: [{ name: "d", is_directory: true, file_size: 12 }],
    });
    // the old {name, type, size} shape validates, but every entry reads as a 0-byte file
    expect(extractUpstreamToolResult("list_directory", '{"results": [{"name": "src", "type": "directory"}]}')).toEqual({
      entries: [{ name: "src", is_directory: false, file_size: 0 }],
    });
    expect(extractUpstreamToolResult("search_directory", '{"num_results": "many"}')).toBeUndefined();
    expect(() => extractUpstreamToolResultStrict("run_command", '{"output": 3}')).toThrow(/valid string/);
    expect(() => extractUpstreamToolResultStrict("view_file", "{}")).toThrow(/no structured result/);
  });
});
