// Must NOT compile: build() without a policy. test/built/declarations.test.ts and
// packages/sdk/src/agent/agent-builder-policy.test.ts check that the error names the fix.
import { Agent } from "@antigravity-ts/sdk";

Agent.builder().model("gemini-3.7-flash").build();
