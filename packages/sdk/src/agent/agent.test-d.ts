// Type tests of the agent lifecycle (antigravity-api.md §2.2), checked by
// `tsc -p packages/sdk/tsconfig.test.json`: every `@ts-expect-error` must be an error.
import { expectTypeOf } from "vitest";
import { allow, deny } from "../policies/policy.js";
import { defineTool } from "../tools/tool.js";
import type { Transport } from "../transport/transport.js";
import type { ChatResponse } from "../conversation/chat-response.js";
import type { StreamChunk } from "../step.js";
import type { ChatStream } from "../conversation/chat-stream.js";
import type { Conversation } from "../conversation/conversation.js";
import { Agent, AgentBuilder, StartedAgent } from "./index.js";

declare const transport: Transport;
const add = defineTool({ name: "add", description: "", call: ({ a, b }: { a: number; b: number }) => a + b });

// build() exists only once a policy was chosen.
// @ts-expect-error no policy chosen yet
Agent.builder().transport(transport).build();
// @ts-expect-error other setters keep the "no policy" state
Agent.builder().model("m").tool(add).systemInstructions("x").build();
expectTypeOf(Agent.builder()).toEqualTypeOf<AgentBuilder<false>>();
expectTypeOf(Agent.builder().allowAll()).toEqualTypeOf<AgentBuilder<true>>();

// Every policy-choosing method enables build(), and later setters keep it enabled.
expectTypeOf(Agent.builder().allowAll().build()).toEqualTypeOf<Agent>();
expectTypeOf(Agent.builder().readOnly().model("m").tool(add).build()).toEqualTypeOf<Agent>();
expectTypeOf(
  Agent.builder()
    .confirmRunCommand(() => true)
    .transport(() => transport)
    .build(),
).toEqualTypeOf<Agent>();
expectTypeOf(Agent.builder().policy(deny("run_command")).build()).toEqualTypeOf<Agent>();
expectTypeOf(
  Agent.builder()
    .policies(allow("view_file"), [deny("run_command")])
    .build(),
).toEqualTypeOf<Agent>();

// The escape hatch compiles in any state.
expectTypeOf(Agent.builder().buildUnchecked()).toEqualTypeOf<Agent>();

// An unknown built-in tool name does not compile.
// @ts-expect-error not a built-in tool
Agent.builder().enabledTools("rm_rf");

// A builder is not a started agent; an unstarted agent cannot chat.
const agent = Agent.builder().allowAll().build();
// @ts-expect-error chat() before start()
void agent.chat("hi");
// @ts-expect-error conversation() before start()
agent.conversation();
// @ts-expect-error stop() before start()
void agent.stop();
// @ts-expect-error there is no conversation id before start()
void agent.conversationId;

async function lifecycle(): Promise<void> {
  const started = await agent.start({ timeoutMs: 10_000 });
  expectTypeOf(started).toEqualTypeOf<StartedAgent>();
  // Like Conversation: chat() streams, chatToCompletion() waits.
  expectTypeOf(started.chat("hi")).toEqualTypeOf<ChatStream>();
  expectTypeOf(started.chat("hi")).toExtend<AsyncIterable<StreamChunk>>();
  expectTypeOf(started.chatToCompletion("hi")).toEqualTypeOf<Promise<ChatResponse>>();
  expectTypeOf(started.conversation().chat("hi")).toEqualTypeOf<ChatStream>();
  expectTypeOf(started.conversation()).toEqualTypeOf<Conversation>();
  expectTypeOf(started.conversationId).toEqualTypeOf<string>();
  // @ts-expect-error a started agent cannot be started again
  void started.start();
  await started.stop();
  await using disposable = await Agent.builder().allowAll().transport(transport).build().start();
  expectTypeOf(disposable).toEqualTypeOf<StartedAgent>();
}
void lifecycle;

// Tools keep their argument types.
// @ts-expect-error args are typed by the tool's call signature
add.call({ a: "1", b: 2 }, undefined as never);
