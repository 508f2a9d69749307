import type { AgentBuilderDefaults } from "./agent-options.js";

/** What the runtime package registered (`@antigravity-ts/node` registers Node's defaults when imported). */
let registered: Readonly<AgentBuilderDefaults> = {};

/**
 * Sets the defaults every `Agent.builder()` of this copy of the SDK starts from: a runtime
 * package's (e.g. `@antigravity-ts/node`: a harness subprocess, the working directory as
 * workspace). Defaults passed to `Agent.builder(defaults)` win over these. One runtime registers;
 * a second registration replaces the first.
 */
export function registerAgentDefaults(defaults: AgentBuilderDefaults): void {
  registered = { ...defaults };
}

/** The defaults registered by {@link registerAgentDefaults} (none until a runtime package registers). */
export function registeredAgentDefaults(): Readonly<AgentBuilderDefaults> {
  return registered;
}
