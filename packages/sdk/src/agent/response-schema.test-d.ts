// Type tests of typed structured output (issue 12 item 1), checked by `tsc -b` through
// packages/sdk/tsconfig.test.json: `responseSchema(schema)` types `ChatResponse.structuredOutput`.
import { expectTypeOf } from "vitest";
import * as z from "zod";
import type { ChatStream } from "../conversation/chat-stream.js";
import type { ChatResponse } from "../conversation/chat-response.js";
import type { CallAllowAllReadOnlyOrPoliciesBeforeBuild } from "./agent-builder.js";
import { Agent, AgentBuilder, StartedAgent, type ResumedTurn } from "./index.js";

declare const started: <T>(agent: Agent<T>) => StartedAgent<T>;
const answer = z.object({ city: z.string(), temperature: z.number() });

// A zod schema: its output type, whichever comes first, the schema or the policy.
const typed = Agent.builder().responseSchema(answer).allowAll().model("m").build();
expectTypeOf(typed).toEqualTypeOf<Agent<{ city: string; temperature: number }>>();
expectTypeOf(Agent.builder().allowAll().responseSchema(answer).build()).toEqualTypeOf<
  Agent<{ city: string; temperature: number }>
>();
expectTypeOf(started(typed).chatToCompletion("hi")).resolves.toEqualTypeOf<
  ChatResponse<{ city: string; temperature: number }>
>();
expectTypeOf(started(typed).chat("hi")).toEqualTypeOf<ChatStream<{ city: string; temperature: number }>>();
expectTypeOf<ChatResponse<{ city: string }>["structuredOutput"]>().toEqualTypeOf<{ city: string } | undefined>();
// The rest of a resumed turn (docs/continuations.md) is typed by the same schema.
expectTypeOf(typed.resume({}, { toolCallId: "c", approved: true })).resolves.toEqualTypeOf<
  ResumedTurn<{ city: string; temperature: number }>
>();
expectTypeOf<ResumedTurn<{ city: string }>["stream"]>().toEqualTypeOf<ChatStream<{ city: string }>>();
void (async () => {
  const response = await started(typed).chatToCompletion("hi");
  // @ts-expect-error `town` is not in the response schema
  void response.structuredOutput?.town;
})();

// The forgotten policy still does not compile with a response schema.
// @ts-expect-error no policy chosen yet
Agent.builder().responseSchema(answer).build();

// A JSON Schema declared `as const` is read; an inline one or JSON text stays `unknown`.
const point = { type: "object", properties: { x: { type: "number" } }, required: ["x"] } as const;
expectTypeOf(Agent.builder().readOnly().responseSchema(point).build()).toEqualTypeOf<Agent<{ x: number }>>();
expectTypeOf(Agent.builder().readOnly().responseSchema({ type: "object" }).build()).toEqualTypeOf<Agent>();
expectTypeOf(Agent.builder().readOnly().responseSchema('{"type":"object"}').build()).toEqualTypeOf<Agent>();
expectTypeOf(Agent.builder().readOnly().responseSchema('{"type":"object"}')).toEqualTypeOf<AgentBuilder<true>>();

// A typed builder is still a builder with a chosen policy (the `this` type of build()).
const chosen: CallAllowAllReadOnlyOrPoliciesBeforeBuild = Agent.builder().allowAll().responseSchema(answer);
void chosen;
