import { describe, expect, it } from "vitest";
import { Agent } from "./agent.js";
import type { ResumeGuard } from "../continuation/consumed-confirmations.js";

// Issue 26 item 4: one way to make an agent. The builder sets what docs/continuations.md needs
// (continuationSecret, resumeGuard), so no guide needs new Agent(options).
describe("AgentBuilder continuation options", () => {
  it("continuationSecret() and resumeGuard() reach the agent's options", () => {
    const guard: ResumeGuard = { consume: () => undefined };
    const secret = "0123456789abcdef0123456789abcdef";
    const agent = Agent.builder().allowAll().continuationSecret(secret).resumeGuard(guard).build();
    expect(agent.options.continuationSecret).toBe(secret);
    expect(agent.options.resumeGuard).toBe(guard);
  });
});
