import { afterEach, describe, expect, it, vi } from "vitest";
import { Agent as CoreAgent, ErrorCode, SdkError, type AgentBuilder } from "@antigravity-ts/sdk";
import { createFakeHarnessTransport } from "@antigravity-ts/sdk/testing";
import { Agent } from "./index.js";

// Upstream local_connection_test.py: test_bare_config_routes_to_vertex_via_env,
// _via_use_enterprise_env, test_vertex_endpoint_direct_construction_hydrates_from_env,
// _api_key_skips_env_hydration, _base_url_skips_env_hydration — through the Node Agent's builder,
// read from the JSON of the init frame.

type Json = Record<string, any>;
const CONVERSATION = "conv-0000000000000000000000000000000003";

afterEach(() => {
  vi.unstubAllEnvs();
});

function env(values: Record<string, string>): void {
  for (const name of [
    "GOOGLE_GENAI_USE_VERTEXAI",
    "GOOGLE_GENAI_USE_ENTERPRISE",
    "GOOGLE_CLOUD_PROJECT",
    "GOOGLE_CLOUD_LOCATION",
  ])
    vi.stubEnv(name, values[name] ?? "");
}

async function models(builder: AgentBuilder<true>): Promise<Json[]> {
  let config: Json = {};
  const transport = createFakeHarnessTransport(async (harness) => {
    config = (JSON.parse(await harness.readRaw()) as Json)["config"] as Json;
    harness.respondInit({ cascadeId: CONVERSATION });
  });
  const agent = await builder.transport(transport).build().start({ timeoutMs: 5_000 });
  await agent.stop();
  await transport.settled();
  return (config["models"] ?? []) as Json[];
}

describe("Vertex configuration from the environment (Node defaults)", () => {
  it("GOOGLE_GENAI_USE_VERTEXAI routes the bare model to Vertex with the environment's project and location", async () => {
    env({
      GOOGLE_GENAI_USE_VERTEXAI: "True",
      GOOGLE_CLOUD_PROJECT: "env-project",
      GOOGLE_CLOUD_LOCATION: "env-location",
    });
    expect(await models(Agent.builder().model("gemini-3.7-flash").workspaces("/w").allowAll())).toEqual([
      {
        name: "gemini-3.7-flash",
        types: ["MODEL_TYPE_TEXT"],
        vertexEndpoint: { project: "env-project", location: "env-location" },
      },
    ]);
  });

  it("GOOGLE_GENAI_USE_ENTERPRISE alone also routes to Vertex (and then needs a project and location)", async () => {
    env({ GOOGLE_GENAI_USE_ENTERPRISE: "1" });
    const error = await models(Agent.builder().model("gemini-3.7-flash").workspaces("/w").allowAll()).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(SdkError);
    expect((error as SdkError).code).toBe(ErrorCode.InvalidArgument);
    expect((error as SdkError).message).toContain("GOOGLE_CLOUD_PROJECT");
  });

  it("explicit options win: vertex(false), an explicit project, and an apiKey (express mode) skips the environment", async () => {
    env({
      GOOGLE_GENAI_USE_VERTEXAI: "true",
      GOOGLE_CLOUD_PROJECT: "env-project",
      GOOGLE_CLOUD_LOCATION: "env-location",
    });
    expect((await models(Agent.builder().vertex(false).apiKey("k").workspaces("/w").allowAll()))[0]).toHaveProperty(
      "geminiApiEndpoint",
    );
    expect(
      (await models(Agent.builder().vertex({ project: "mine" }).workspaces("/w").allowAll()))[0]?.vertexEndpoint,
    ).toEqual({ project: "mine", location: "env-location" });
    expect(
      (await models(Agent.builder().apiKey("express-key").workspaces("/w").allowAll()))[0]?.vertexEndpoint,
    ).toEqual({ apiKey: "express-key" });
  });

  it("hydrates vertexEndpoint entries of models() unless they have an apiKey or a baseUrl", async () => {
    env({ GOOGLE_CLOUD_PROJECT: "env-project", GOOGLE_CLOUD_LOCATION: "env-location" });
    const listed = await models(
      Agent.builder()
        .models([
          { name: "a", endpoint: { case: "vertexEndpoint", value: {} } },
          { name: "b", endpoint: { case: "vertexEndpoint", value: { apiKey: "express-key" } } },
          { name: "c", endpoint: { case: "vertexEndpoint", value: { baseUrl: "http://localhost:8080" } } },
          { name: "d", endpoint: { case: "geminiApiEndpoint", value: {} } },
        ])
        .workspaces("/w")
        .allowAll(),
    );
    expect(listed.map((m) => m.vertexEndpoint ?? m.geminiApiEndpoint)).toEqual([
      { project: "env-project", location: "env-location" },
      { apiKey: "express-key" },
      { baseUrl: "http://localhost:8080" },
      {},
    ]);
  });

  it("without the variables nothing changes, and only Node's registered defaults read them, not the universal core", async () => {
    env({});
    expect(await models(Agent.builder().apiKey("k").workspaces("/w").allowAll())).toEqual([
      { name: "gemini-3.8-flash", types: ["MODEL_TYPE_TEXT"], geminiApiEndpoint: { apiKey: "k" } },
    ]);
    env({
      GOOGLE_GENAI_USE_VERTEXAI: "true",
      GOOGLE_CLOUD_PROJECT: "env-project",
      GOOGLE_CLOUD_LOCATION: "env-location",
    });
    // Builder defaults win over the registered ones: this builder has Node's defaults but not its fromEnvironment.
    expect(
      (
        await models(
          CoreAgent.builder({ fromEnvironment: (options) => options })
            .apiKey("k")
            .workspaces("/w")
            .allowAll(),
        )
      )[0],
    ).toHaveProperty("geminiApiEndpoint");
  });
});
