import {
  StepUpdateSchema,
  create,
  type MessageInitShape,
  StepUpdate_Source,
  StepUpdate_State,
  StepUpdate_Target,
  decodeOutputEvent,
  type StepUpdate,
} from "@antigravity-ts/sdk/wire";

/** A wire `StepUpdate` as an init object (what `FakeHarness.step` and `history` take). */
export type StepUpdateInit = MessageInitShape<typeof StepUpdateSchema>;

/** A `StepUpdate` message from an init object. */
export function stepUpdate(init: StepUpdateInit): StepUpdate {
  return create(StepUpdateSchema, init);
}

/** A `StepUpdate` decoded from the JSON of a `stepUpdate` frame through the real codec, the way a connection sees it. */
export function stepUpdateFromJson(json: Readonly<Record<string, unknown>>): StepUpdate {
  const event = decodeOutputEvent(JSON.stringify({ stepUpdate: json }));
  if (event.event.case !== "stepUpdate") throw new Error("the frame decoded to something other than a stepUpdate");
  return event.event.value;
}

/** Where a step sits: its trajectory (and cascade) and index. */
export interface StepPlace {
  trajectoryId: string;
  /** Default the trajectory id (a main-trajectory step). */
  cascadeId?: string | undefined;
  stepIndex: number;
  /** Default ACTIVE. */
  state?: StepUpdate_State | undefined;
}

/** A model text step (SOURCE_MODEL → TARGET_USER) carrying `delta`; its full `text` is `full` (default `delta`). */
export function textStep(place: StepPlace, delta: string, full = delta): StepUpdateInit {
  return {
    ...placeOf(place),
    source: StepUpdate_Source.MODEL,
    target: StepUpdate_Target.USER,
    text: full,
    textDelta: delta,
  };
}

/** The harness's own step for a custom tool call (§7.1), as the reference harness sends it. */
export function customToolStep(
  place: StepPlace,
  call: { id: string; name: string; argumentsJson: string },
): StepUpdateInit {
  return {
    ...placeOf(place),
    source: StepUpdate_Source.MODEL,
    target: StepUpdate_Target.USER,
    customTool: { toolCall: call },
  };
}

function placeOf(place: StepPlace): {
  trajectoryId: string;
  cascadeId: string;
  stepIndex: number;
  state: StepUpdate_State;
} {
  return {
    trajectoryId: place.trajectoryId,
    cascadeId: place.cascadeId ?? place.trajectoryId,
    stepIndex: place.stepIndex,
    state: place.state ?? StepUpdate_State.ACTIVE,
  };
}
