import { mkdir, realpath, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { useHarnessFixture } from "../../packages/harness/src/test-support/fixture.js";
import { finalSteps, harnessConfig, type Frame } from "../../packages/harness/src/test-support/ws-client.js";

// The built harness leaves re2js and protobuf-es out of dist/bin.bundle.cjs and requires them from
// node_modules on first use (rollup.config.mjs, docs/harness.md): a session of dist/bin.cjs that
// needs both gets them. An init frame with a `null` is one the fast reader leaves to protobuf-es's
// fromJson, in the bundle (this test fails when the bundle cannot require it); find_file and a
// regex search_directory match with re2js in the tool workers (dist/tool-worker.js), which import it.

const SCRIPT = {
  turns: [
    {
      match: "files",
      calls: [
        {
          toolCalls: [
            { name: "find_file", args: { directory_path: ".", pattern: "*.txt" } },
            { name: "search_directory", args: { directory_path: ".", query: "gam+a", is_regex: true } },
          ],
        },
        { text: "found" },
      ],
    },
  ],
};

describe("the built harness's lazily required dependencies", () => {
  const fixture = useHarnessFixture({
    name: "lazy-dependencies",
    build: "dist",
    script: SCRIPT,
    prepare: async (_root, workspace) => {
      await mkdir(path.join(workspace, "notes"));
      await writeFile(path.join(workspace, "notes", "a.txt"), "alpha\ngamma\n");
    },
  });

  it("re2js: find_file and search_directory match in a session of dist/bin.cjs", async () => {
    const client = await fixture.connect();
    client.prompt("files please");
    const final = finalSteps(await client.turn());
    const real = await realpath(fixture.workspace);
    expect(final.find((step) => step.findFile)?.["findFile"]).toEqual({
      directoryPath: real,
      query: "*.txt",
      output: "notes/a.txt",
    });
    expect((final.find((step) => step.searchDirectory) as Frame)["text"]).toBe("notes/a.txt:2: gamma");
    client.close();
  });

  it("protobuf-es: an init frame only fromJson reads is answered", async () => {
    const client = await fixture.open();
    const init = await client.init(harnessConfig(fixture.workspace, { compactionThreshold: null }));
    expect(init["cascadeId"]).toMatch(/^[a-zA-Z0-9-]{32,}$/);
    client.close();
  });
});
