// Type tests of run() and new Agent(options), checked by `tsc -p packages/sdk/tsconfig.test.json`:
// every `@ts-expect-error` must be an error. The policy is chosen explicitly, as build() requires.
import { expectTypeOf } from "vitest";
import { allowAll } from "../policies/policy.js";
import type { Transport } from "../transport/transport.js";
import type { ChatResponse } from "../conversation/chat-response.js";
import type { ChatEvent } from "../conversation/chat-events.js";
import { Agent, run, type RunResult } from "./index.js";

declare const transport: Transport;

// @ts-expect-error run() needs policies
run("hi", { transport });
// @ts-expect-error new Agent(options) needs policies
new Agent({ transport });

const result = run("hi", { transport, policies: [allowAll()], timeoutMs: 1000 });
expectTypeOf(result).toEqualTypeOf<RunResult>();
expectTypeOf(result.final()).toEqualTypeOf<Promise<ChatResponse>>();
for await (const event of result) expectTypeOf(event).toEqualTypeOf<ChatEvent>();
expectTypeOf(new Agent({ transport, policies: [allowAll()] })).toEqualTypeOf<Agent>();
