import type { MessageInitShape } from "@bufbuild/protobuf";
import type { ModelConfigSchema } from "../wire/index.js";
import type { HarnessConfigOptions } from "./harness-config.js";

/** The variables {@link vertexFromEnvironment} reads, by name (absent ones `undefined`). */
export type EnvironmentLookup = (name: string) => string | undefined;

const TRUE = new Set(["true", "1"]);

/**
 * Upstream's Vertex configuration from the environment, applied to options that leave it unset:
 * `GOOGLE_GENAI_USE_VERTEXAI` (or `GOOGLE_GENAI_USE_ENTERPRISE`) = `true`/`1` turns `vertex` on
 * (`LocalAgentConfig.__init__`), and a Vertex endpoint without `apiKey` or `baseUrl` takes
 * `GOOGLE_CLOUD_PROJECT` / `GOOGLE_CLOUD_LOCATION` for the project and location it lacks
 * (`models.VertexEndpoint._populate_env_vars`) — for the shorthand model and for every
 * `vertexEndpoint` of `models`. Options set explicitly always win. The universal core never
 * reads the environment itself; `@antigravity-ts/node` calls this with `process.env`.
 *
 * @example
 * const options = vertexFromEnvironment(agentOptions, (name) => process.env[name]);
 */
export function vertexFromEnvironment<T extends HarnessConfigOptions>(options: T, env: EnvironmentLookup): T {
  const flag = (name: string): boolean => TRUE.has((env(name) ?? "").toLowerCase());
  const project = env("GOOGLE_CLOUD_PROJECT") || undefined;
  const location = env("GOOGLE_CLOUD_LOCATION") || undefined;
  const out: T = { ...options };
  if (out.vertex === undefined && (flag("GOOGLE_GENAI_USE_VERTEXAI") || flag("GOOGLE_GENAI_USE_ENTERPRISE")))
    out.vertex = true;
  if (out.vertex !== undefined && out.vertex !== false && !out.apiKey) {
    const given = out.vertex === true ? {} : out.vertex;
    out.vertex = {
      ...given,
      ...(given.project === undefined && project !== undefined ? { project } : {}),
      ...(given.location === undefined && location !== undefined ? { location } : {}),
    };
  }
  if (out.models !== undefined) out.models = out.models.map((model) => withVertexEnvironment(model, project, location));
  return out;
}

function withVertexEnvironment(
  model: MessageInitShape<typeof ModelConfigSchema>,
  project: string | undefined,
  location: string | undefined,
): MessageInitShape<typeof ModelConfigSchema> {
  const endpoint = model.endpoint;
  if (endpoint?.case !== "vertexEndpoint" || endpoint.value === undefined) return model;
  const value = endpoint.value;
  if (value.baseUrl || value.apiKey) return model;
  const copy: MessageInitShape<typeof ModelConfigSchema> = Object.assign({}, model);
  copy.endpoint = {
    case: "vertexEndpoint",
    value: {
      ...value,
      ...(value.project === undefined && project !== undefined ? { project } : {}),
      ...(value.location === undefined && location !== undefined ? { location } : {}),
    },
  };
  return copy;
}
