import { errorText, readJsonFast, writeJson } from "@antigravity-ts/sdk/internal";
import type { StepUpdate, StepUpdateSchema } from "@antigravity-ts/sdk/wire";
import type { JsonValue } from "@bufbuild/protobuf";

// A session file's `history` (protobuf JSON StepUpdates) without the generated schema registry at
// start-up: steps are written from the schema-free wire plan (`writeJson`, equal to protobuf-es
// `toJson`) and read by the SDK's fast reader; only a step it leaves undecided loads protobuf-es
// `fromJson` and the schema (a dynamic import, a lazy chunk of the bundled harness).

const STEP_UPDATE = { typeName: "antigravity.localharness.StepUpdate" } as const;

/** A step as it is stored: its protobuf JSON. */
export function storedStep(step: StepUpdate): JsonValue {
  return writeJson(STEP_UPDATE.typeName, step);
}

/**
 * The steps of a stored history, decoded as `fromJson(StepUpdateSchema, json, { ignoreUnknownFields: true })`
 * decodes them. Rejects with `history[i] is not a StepUpdate: …` at the first entry that is not one.
 */
export async function readStoredSteps(history: readonly unknown[]): Promise<StepUpdate[]> {
  const steps: StepUpdate[] = [];
  for (const [i, json] of history.entries()) {
    const fast = readJsonFast<typeof StepUpdateSchema>(STEP_UPDATE, json);
    if (fast !== undefined) {
      steps.push(fast);
      continue;
    }
    const { StepUpdateSchema: schema, fromJson } = await import("@antigravity-ts/sdk/wire");
    try {
      steps.push(fromJson(schema, json as JsonValue, { ignoreUnknownFields: true }));
    } catch (error) {
      throw new Error(`history[${i}] is not a StepUpdate: ${errorText(error)}`);
    }
  }
  return steps;
}
