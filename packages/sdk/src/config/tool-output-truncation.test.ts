import { describe, expect, it } from "vitest";
import { ErrorCode } from "../errors.js";
import { buildHarnessConfig } from "./harness-config.js";
import { HarnessConfigSchema, toJson } from "../wire/index.js";

// toolOutputTruncation as upstream's CapabilitiesConfig takes it (an int, or {max_tokens}) and
// sends it (ToolOutputTruncation.truncate.max_tokens, local_connection.py @8249a379).

describe("toolOutputTruncation", () => {
  it("sends truncate.maxTokens for a number or { maxTokens }, 0 included", () => {
    for (const [option, maxTokens] of [
      [2048, 2048],
      [{ maxTokens: 100 }, 100],
      [0, 0],
    ] as const) {
      const json = toJson(HarnessConfigSchema, buildHarnessConfig({ toolOutputTruncation: option })) as Record<
        string,
        unknown
      >;
      expect(json["toolOutputTruncation"]).toEqual({ truncate: { maxTokens } });
    }
    expect(toJson(HarnessConfigSchema, buildHarnessConfig({}))).not.toHaveProperty("toolOutputTruncation");
  });

  it("refuses what is no token count with InvalidArgument", () => {
    for (const option of [-1, 1.5, 2 ** 31, "100", { maxTokens: "1" }, null]) {
      expect(() => buildHarnessConfig({ toolOutputTruncation: option as never }), String(option)).toThrow(
        expect.objectContaining({ code: ErrorCode.InvalidArgument }),
      );
    }
  });
});
