import type { MessageInitShape } from "@bufbuild/protobuf";
import type { SystemInstructionsSchema } from "../wire/index.js";
import { definedProperties } from "../defined-properties.js";

/**
 * System instructions: a string is appended to the harness's own prompt (section
 * `user_system_instructions`); `{ custom }` replaces it; `{ sections }` appends titled sections,
 * optionally with a custom identity (protocol §5.1).
 */
export type SystemInstructionsOption =
  | string
  | { custom: string }
  | { identity?: string; sections: readonly { title: string; content: string }[] };

/** `SystemInstructions` of an option (upstream `to_system_instructions_proto`), also for subagents. */
export function systemInstructionsOf(
  option: SystemInstructionsOption | undefined,
): MessageInitShape<typeof SystemInstructionsSchema> | undefined {
  if (option === undefined) return undefined;
  if (typeof option === "string") {
    if (option.trim() === "") return undefined;
    return {
      type: { case: "appended", value: { appendedSections: [{ title: "user_system_instructions", content: option }] } },
    };
  }
  if ("custom" in option)
    return { type: { case: "custom", value: { part: [{ part: { case: "text", value: option.custom } }] } } };
  return {
    type: {
      case: "appended",
      value: {
        ...definedProperties({ customIdentity: option.identity }),
        appendedSections: option.sections.map((s) => ({ title: s.title, content: s.content })),
      },
    },
  };
}
