import type { MessageInitShape } from "@bufbuild/protobuf";
import { ErrorCode, SdkError } from "../errors.js";
import type { ToolOutputTruncationSchema } from "../wire/index.js";

/** Largest `max_tokens` (an int32 on the wire; upstream types.py `_MAX_INT32`). */
const MAX_INT32 = 2 ** 31 - 1;

/**
 * Tool-output truncation (upstream `CapabilitiesConfig.tool_output_truncation_config`, an int or
 * `ToolOutputTruncationConfig(max_tokens)`, types.py @4bfe2531): a tool result over `maxTokens`
 * estimated tokens keeps its beginning and loses its end, with a notice to the model; 0 turns it
 * off. Sent as `HarnessConfig.tool_output_truncation.truncate.max_tokens`, as upstream's
 * `build_tool_output_truncation_proto` (local_connection.py @8249a379) does.
 */
export type ToolOutputTruncationOption = number | { maxTokens: number };

/** `tool_output_truncation` of the option, or undefined when none is asked for. */
export function toolOutputTruncationOf(
  option: ToolOutputTruncationOption | undefined,
): MessageInitShape<typeof ToolOutputTruncationSchema> | undefined {
  if (option === undefined) return undefined;
  const maxTokens = typeof option === "object" && option !== null ? option.maxTokens : option;
  if (typeof maxTokens !== "number" || !Number.isInteger(maxTokens) || maxTokens < 0 || maxTokens > MAX_INT32)
    throw new SdkError(
      ErrorCode.InvalidArgument,
      `toolOutputTruncation must be a number of tokens (an integer from 0 to ${MAX_INT32}) or { maxTokens }, got ${JSON.stringify(option)}`,
    );
  return { strategy: { case: "truncate", value: { maxTokens } } };
}
