import { describe, expect, it } from "vitest";
import { BuiltinTool, builtinToolsOf, harnessSideTools } from "./builtin-tools.js";
import { HarnessSideToolsSchema, create } from "../wire/index.js";

describe("builtinToolsOf", () => {
  it("reads back exactly the tools harnessSideTools switched on", () => {
    for (const active of [
      new Set<BuiltinTool>(),
      new Set(Object.values(BuiltinTool)),
      new Set([BuiltinTool.RunCommand, BuiltinTool.ViewFile]),
    ]) {
      expect(builtinToolsOf(create(HarnessSideToolsSchema, harnessSideTools(active)))).toEqual(active);
    }
  });

  it("treats an absent switch or message as off", () => {
    expect(builtinToolsOf(undefined)).toEqual(new Set());
    expect(builtinToolsOf(create(HarnessSideToolsSchema, { listDir: { enabled: true }, runCommand: {} }))).toEqual(
      new Set([BuiltinTool.ListDirectory]),
    );
  });
});
