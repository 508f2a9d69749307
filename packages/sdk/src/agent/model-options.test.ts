import { afterEach, describe, expect, it } from "vitest";
import { THINKING_LEVELS, ThinkingLevel } from "../config/model-options.js";
import { ErrorCode, SdkError } from "../errors.js";
import {
  createFakeHarnessTransport,
  type FakeHarness,
  type FakeHarnessTransport,
} from "../transport/in-memory-harness.js";
import {
  ModelType,
  StepUpdate_Source,
  StepUpdate_State,
  StepUpdate_Target,
  TrajectoryStateUpdate_State,
} from "../wire/index.js";
import type { AgentBuilder } from "./agent-builder.js";
import { Agent } from "./agent.js";

// Upstream's cases: local_connection_test.py (test_retry_config_*, test_models_service_tier_*,
// test_models_thinking_level_*, test_vertex_endpoint_service_tier_set) and event_processor_test.py
// (test_parse_usage_metadata_*), driven through the builder and read from the init frame's JSON.

const T = "conv-0000000000000000000000000000000002";
let transport: FakeHarnessTransport | undefined;

afterEach(async () => {
  await transport?.settled();
  transport = undefined;
});

type Json = Record<string, any>;

/** Starts the agent against a fake harness and returns the JSON of its init frame's config. */
async function initFrame(
  builder: AgentBuilder<true>,
  script: (harness: FakeHarness) => Promise<void> = async () => undefined,
): Promise<Json> {
  let config: Json | undefined;
  transport = createFakeHarnessTransport(async (harness) => {
    config = (JSON.parse(await harness.readRaw()) as Json)["config"] as Json;
    harness.respondInit({ cascadeId: T });
    await script(harness);
  });
  const agent = await builder.transport(transport).build().start({ timeoutMs: 5_000 });
  await agent.stop();
  return config ?? {};
}

async function startError(builder: AgentBuilder<true>): Promise<SdkError> {
  const error = await builder
    .transport(createFakeHarnessTransport(async () => undefined))
    .build()
    .start({ timeoutMs: 5_000 })
    .then(
      () => undefined,
      (e: unknown) => e,
    );
  expect(error).toBeInstanceOf(SdkError);
  return error as SdkError;
}

describe("retryConfig (HarnessConfig.retry_config)", () => {
  it("is absent when unset or empty (test_retry_config_none_or_default)", async () => {
    expect(await initFrame(Agent.builder().allowAll())).not.toHaveProperty("retryConfig");
    expect(await initFrame(Agent.builder().allowAll().retryConfig({}))).not.toHaveProperty("retryConfig");
    expect(
      await initFrame(Agent.builder().allowAll().retryConfig({ apiRetry: {}, modelOutputRetry: {} })),
    ).not.toHaveProperty("retryConfig");
  });

  it("sends apiRetry alone (test_retry_config_api_retry_only)", async () => {
    const config = await initFrame(
      Agent.builder()
        .allowAll()
        .retryConfig({
          apiRetry: { maxRetries: 5, initialSleepDurationMs: 500, exponentialMultiplier: 1.5, jitterRange: 0.1 },
        }),
    );
    expect(config["retryConfig"]).toEqual({
      apiRetry: { maxRetries: 5, initialSleepDurationMs: 500, exponentialMultiplier: 1.5, jitterRange: 0.1 },
    });
  });

  it("sends modelOutputRetry alone (test_retry_config_model_output_retry_only)", async () => {
    const config = await initFrame(
      Agent.builder()
        .allowAll()
        .retryConfig({ modelOutputRetry: { maxRetries: 3 } }),
    );
    expect(config["retryConfig"]).toEqual({ modelOutputRetry: { maxRetries: 3 } });
  });

  it("sends both, boundary values included (test_retry_config_all_fields_set, _boundary_and_edge_values)", async () => {
    const config = await initFrame(
      Agent.builder()
        .allowAll()
        .retryConfig({
          apiRetry: {
            maxRetries: 0,
            initialSleepDurationMs: 4_294_967_295,
            exponentialMultiplier: 2.0,
            jitterRange: 0,
          },
          modelOutputRetry: { maxRetries: 5 },
        }),
    );
    // Explicit presence: zeros travel (protocol §4.1).
    expect(config["retryConfig"]).toEqual({
      apiRetry: { maxRetries: 0, initialSleepDurationMs: 4_294_967_295, exponentialMultiplier: 2, jitterRange: 0 },
      modelOutputRetry: { maxRetries: 5 },
    });
  });

  it("refuses values upstream's pydantic model refuses, before connecting", async () => {
    for (const retry of [
      { apiRetry: { maxRetries: -1 } },
      { apiRetry: { maxRetries: 1.5 } },
      { apiRetry: { initialSleepDurationMs: 2 ** 32 } },
      { apiRetry: { jitterRange: -0.1 } },
      { apiRetry: { exponentialMultiplier: Number.NaN } },
      { modelOutputRetry: { maxRetries: -3 } },
    ]) {
      const error = await startError(Agent.builder().allowAll().retryConfig(retry));
      expect(error.code).toBe(ErrorCode.InvalidArgument);
      expect(error.message).toMatch(/^retryConfig\.\w+\.\w+ must be/);
    }
  });
});

describe("model options (GeminiModelOptions)", () => {
  it("sends every thinking level as upstream's string value (test_models_thinking_level_all_values)", async () => {
    expect(THINKING_LEVELS).toEqual(["minimal", "low", "medium", "high", "extra_high"]);
    for (const level of THINKING_LEVELS) {
      const config = await initFrame(Agent.builder().allowAll().model("gemini-3.7-flash").thinkingLevel(level));
      expect(config["models"]).toEqual([
        {
          name: "gemini-3.7-flash",
          types: ["MODEL_TYPE_TEXT"],
          geminiApiEndpoint: { apiKey: "", options: { thinkingLevel: level } },
        },
      ]);
    }
  });

  it("sends every service tier, and an unset tier leaves options out (test_models_service_tier_*)", async () => {
    for (const tier of ["standard", "priority", "flex"] as const) {
      const config = await initFrame(Agent.builder().allowAll().apiKey("AIza-k").serviceTier(tier));
      expect(config["models"][0].geminiApiEndpoint).toEqual({ apiKey: "AIza-k", options: { serviceTier: tier } });
    }
    const none = await initFrame(Agent.builder().allowAll().apiKey("AIza-k").modelOptions({}));
    expect(none["models"][0].geminiApiEndpoint).toEqual({ apiKey: "AIza-k" });
  });

  it("merges thinking level and tier, and options alone select the default model (upstream shorthand)", async () => {
    const config = await initFrame(Agent.builder().allowAll().thinkingLevel("high").serviceTier("priority"));
    expect(config["models"]).toEqual([
      {
        name: "gemini-3.8-flash",
        types: ["MODEL_TYPE_TEXT"],
        geminiApiEndpoint: { apiKey: "", options: { thinkingLevel: "high", serviceTier: "priority" } },
      },
    ]);
  });

  it("refuses an unknown thinking level or a blank tier from JavaScript callers", async () => {
    const level = await startError(
      Agent.builder()
        .allowAll()
        .thinkingLevel("huge" as never),
    );
    expect(level.code).toBe(ErrorCode.InvalidArgument);
    expect(level.message).toContain("minimal, low, medium, high, extra_high");
    const tier = await startError(Agent.builder().allowAll().serviceTier(" "));
    expect(tier.code).toBe(ErrorCode.InvalidArgument);
  });

  it("takes upstream's ThinkingLevel members, the same values as their strings (models.py ThinkingLevel)", async () => {
    expect(Object.values(ThinkingLevel)).toEqual(THINKING_LEVELS);
    const config = await initFrame(Agent.builder().allowAll().model("m").thinkingLevel(ThinkingLevel.ExtraHigh));
    expect(config["models"][0].geminiApiEndpoint.options).toEqual({ thinkingLevel: "extra_high" });
  });

  it("puts the level on every text model of models(...), Gemini API and Vertex AI alike, not on image models", async () => {
    const config = await initFrame(
      Agent.builder()
        .allowAll()
        .models([
          { name: "t1", types: [ModelType.TEXT], endpoint: { case: "geminiApiEndpoint", value: { apiKey: "k" } } },
          {
            name: "t2",
            endpoint: { case: "vertexEndpoint", value: { apiKey: "v", options: { serviceTier: "flex" } } },
          },
          { name: "img", types: [ModelType.IMAGE], endpoint: { case: "gemmaEndpoint", value: {} } },
        ])
        .thinkingLevel("low"),
    );
    expect(config["models"]).toEqual([
      { name: "t1", types: ["MODEL_TYPE_TEXT"], geminiApiEndpoint: { apiKey: "k", options: { thinkingLevel: "low" } } },
      { name: "t2", vertexEndpoint: { apiKey: "v", options: { serviceTier: "flex", thinkingLevel: "low" } } },
      { name: "img", types: ["MODEL_TYPE_IMAGE"], gemmaEndpoint: {} },
    ]);
  });

  it("refuses a text model that cannot take a level (Unsupported), another level on a model, or no text model", async () => {
    const gemma = await startError(
      Agent.builder()
        .allowAll()
        .models([{ name: "gemma-4", endpoint: { case: "gemmaEndpoint", value: { baseUrl: "http://127.0.0.1:1" } } }])
        .thinkingLevel("high"),
    );
    expect(gemma.code).toBe(ErrorCode.Unsupported);
    expect(gemma.message).toContain('"gemma-4"');
    expect(gemma.details).toMatchObject({ option: "thinkingLevel", model: "gemma-4" });
    const twice = await startError(
      Agent.builder()
        .allowAll()
        .models([{ name: "t", endpoint: { case: "geminiApiEndpoint", value: { options: { thinkingLevel: "low" } } } }])
        .thinkingLevel("high"),
    );
    expect(twice.code).toBe(ErrorCode.InvalidArgument);
    expect(twice.message).toContain('already sets thinkingLevel "low"');
    const imagesOnly = await startError(
      Agent.builder()
        .allowAll()
        .models([{ name: "img", types: [ModelType.IMAGE], endpoint: { case: "geminiApiEndpoint", value: {} } }])
        .thinkingLevel("high"),
    );
    expect(imagesOnly.code).toBe(ErrorCode.InvalidArgument);
    expect(imagesOnly.message).toContain("reaches no model");
    // The same level already on the model is no conflict; with model(name) the shorthand carries it.
    const config = await initFrame(
      Agent.builder()
        .allowAll()
        .models([{ name: "img", types: [ModelType.IMAGE], endpoint: { case: "geminiApiEndpoint", value: {} } }])
        .model("t")
        .thinkingLevel("high"),
    );
    expect(config["models"][1]).toMatchObject({ name: "t", geminiApiEndpoint: { options: { thinkingLevel: "high" } } });
  });
});

describe("vertex (VertexEndpoint)", () => {
  it("sends project, location and options (test_vertex_endpoint_service_tier_set)", async () => {
    const config = await initFrame(
      Agent.builder()
        .allowAll()
        .model("gemini-3.7-pro")
        .vertex({ project: "p1", location: "us-central1" })
        .serviceTier("priority"),
    );
    expect(config["models"]).toEqual([
      {
        name: "gemini-3.7-pro",
        types: ["MODEL_TYPE_TEXT"],
        vertexEndpoint: { project: "p1", location: "us-central1", options: { serviceTier: "priority" } },
      },
    ]);
  });

  it("express mode carries the apiKey only", async () => {
    const config = await initFrame(Agent.builder().allowAll().vertex().apiKey("vx-key"));
    expect(config["models"]).toEqual([
      { name: "gemini-3.8-flash", types: ["MODEL_TYPE_TEXT"], vertexEndpoint: { apiKey: "vx-key" } },
    ]);
  });

  it("refuses both modes at once and neither (models.VertexEndpoint.validate_endpoint)", async () => {
    const both = await startError(Agent.builder().allowAll().vertex({ project: "p", location: "l" }).apiKey("k"));
    expect(both.code).toBe(ErrorCode.InvalidArgument);
    expect(both.message).toContain("not both");
    const neither = await startError(Agent.builder().allowAll().vertex({ project: "p" }));
    expect(neither.code).toBe(ErrorCode.InvalidArgument);
    expect(neither.message).toContain("GOOGLE_CLOUD_PROJECT");
  });

  it("vertex(false) is the Gemini API", async () => {
    const config = await initFrame(Agent.builder().allowAll().vertex(false).apiKey("k"));
    expect(config["models"][0]).toHaveProperty("geminiApiEndpoint");
  });
});

describe("serviceTier in usage (UsageMetadata.service_tier)", () => {
  it("surfaces the served tier in the turn's and the session's usage; no tier reads as undefined (test_parse_usage_metadata_*)", async () => {
    let turn = 0;
    transport = createFakeHarnessTransport(async (harness) => {
      await harness.readInit();
      harness.respondInit({ cascadeId: T });
      for (;;) {
        await harness.expect("userInput");
        turn += 1;
        harness.state(T, TrajectoryStateUpdate_State.RUNNING);
        harness.step({
          trajectoryId: T,
          cascadeId: T,
          stepIndex: turn,
          state: StepUpdate_State.DONE,
          source: StepUpdate_Source.MODEL,
          target: StepUpdate_Target.USER,
          text: "ok",
          textDelta: "ok",
        });
        // The first call was asked as priority and downgraded; the second reports no tier.
        const total =
          turn === 1
            ? {
                promptTokenCount: 100n,
                candidatesTokenCount: 75n,
                totalTokenCount: 250n,
                cachedContentTokenCount: 50n,
                thoughtsTokenCount: 25n,
                serviceTier: "standard",
              }
            : { promptTokenCount: 110n, totalTokenCount: 260n };
        harness.send({ event: { case: "usageUpdate", value: { total } } });
        harness.state(T, TrajectoryStateUpdate_State.FULLY_IDLE);
        if (turn === 2) return;
      }
    });
    const agent = await Agent.builder()
      .allowAll()
      .serviceTier("priority")
      .transport(transport)
      .build()
      .start({ timeoutMs: 5_000 });
    try {
      const first = await agent.chatToCompletion("hi");
      expect(first.usageMetadata).toEqual({
        promptTokenCount: 100,
        candidatesTokenCount: 75,
        totalTokenCount: 250,
        cachedContentTokenCount: 50,
        thoughtsTokenCount: 25,
        serviceTier: "standard",
      });
      expect((await agent.conversation().lastTurnUsage())?.serviceTier).toBe("standard");
      expect((await agent.conversation().totalUsage()).serviceTier).toBe("standard");
      const second = await agent.chatToCompletion("again");
      expect(second.usageMetadata).not.toHaveProperty("serviceTier");
      const last = await agent.conversation().lastTurnUsage();
      expect(last?.totalTokenCount).toBe(10);
      expect(last).not.toHaveProperty("serviceTier");
    } finally {
      await agent.stop();
    }
  });
});
