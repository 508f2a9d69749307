import type { ConnectionCapabilities, ConnectionStrategy } from "@antigravity-ts/sdk";

/**
 * A connection whose library loads when the first session opens (`--acp-agent`, `--hosted`): the
 * other modes of the command start without it. `capabilities` is the wire's, known before the
 * load because `build()` checks the agent's options against it.
 */
export function lazyConnection(
  capabilities: ConnectionCapabilities,
  load: () => Promise<ConnectionStrategy>,
): ConnectionStrategy {
  let loaded: Promise<ConnectionStrategy> | undefined;
  return {
    capabilities,
    async connect(request, callOptions) {
      loaded ??= load();
      return (await loaded).connect(request, callOptions);
    },
  };
}
