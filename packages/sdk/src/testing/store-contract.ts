import { CONVERSATION_SNAPSHOT_FORMAT, CONVERSATION_SNAPSHOT_VERSION } from "../conversation/conversation-snapshot.js";
import type { ConversationSnapshot } from "../conversation/conversation-snapshot.js";
import type { ConversationStore, ConversationStoreWarning } from "../conversation/conversation-store.js";
import { ErrorCode, SdkError } from "../errors.js";
import { StepSource, StepTarget, StepType } from "../step.js";
import type { Step } from "../step.js";
import { mockStep } from "./mock-step.js";

/**
 * A snapshot with `turns` turns of realistic steps (a user prompt, thinking, a tool call and its
 * result, an answer), for store tests. `padding` characters of mixed-script text are added to each
 * answer to make it large. Deterministic for given arguments.
 *
 * @example
 * await store.save(sampleSnapshot("conversation-0123456789abcdef0123456789ab", { turns: 3 }));
 */
export function sampleSnapshot(
  conversationId: string,
  options: { turns?: number; padding?: number } = {},
): ConversationSnapshot {
  const turns = options.turns ?? 2;
  const steps: Step[] = [];
  const turnStartIndices: number[] = [];
  const filler = "déjà vu — 雨 🌧 ".repeat(Math.ceil((options.padding ?? 0) / 14)).slice(0, options.padding ?? 0);
  for (let t = 0; t < turns; t++) {
    const at = (i: number): { trajectoryId: string; stepIndex: number } => ({
      trajectoryId: conversationId,
      stepIndex: steps.length + i,
    });
    turnStartIndices.push(steps.length);
    steps.push(mockStep({ ...at(0), source: StepSource.User, target: StepTarget.Unknown, content: `question ${t}` }));
    steps.push(mockStep({ ...at(0), thinking: `thinking about ${t}` }));
    steps.push(
      mockStep({
        ...at(0),
        type: StepType.ToolCall,
        toolCalls: [{ id: `call-${t}`, name: "list_directory", args: { directory_path: "." } }],
      }),
    );
    steps.push(
      mockStep({
        ...at(0),
        content: `answer ${t} ${filler}`,
        usageMetadata: {
          promptTokenCount: 10,
          candidatesTokenCount: 5,
          totalTokenCount: 15,
          cachedContentTokenCount: 0,
          thoughtsTokenCount: 2,
        },
      }),
    );
  }
  const usage = {
    promptTokenCount: 10 * turns,
    candidatesTokenCount: 5 * turns,
    totalTokenCount: 15 * turns,
    cachedContentTokenCount: 0,
    thoughtsTokenCount: 2 * turns,
  };
  return {
    format: CONVERSATION_SNAPSHOT_FORMAT,
    version: CONVERSATION_SNAPSHOT_VERSION,
    conversationId,
    steps,
    turnStartIndices,
    turnCount: turns,
    compactionIndices: [],
    usage: {
      total: usage,
      harnessTotal: usage,
      lastTurn: {
        promptTokenCount: 10,
        candidatesTokenCount: 5,
        totalTokenCount: 15,
        cachedContentTokenCount: 0,
        thoughtsTokenCount: 2,
      },
    },
  };
}

/** What a store adapter gives {@link storeContractChecks}. */
export interface StoreContractSubject {
  /** A store with nothing in it, whose `onWarning` pushes into `warnings`. */
  store: ConversationStore;
  warnings: ConversationStoreWarning[];
  /** Puts `text` where the store keeps the snapshot of `conversationId`, bypassing `save` (to plant a corrupt entry). */
  writeRaw(conversationId: string, text: string): Promise<void>;
}

/** One check of the contract: `run` throws an `Error` saying what broke. */
export interface StoreContractCheck {
  name: string;
  run(subject: StoreContractSubject): Promise<void>;
}

const ID = "contract-0123456789abcdef0123456789abcdef";

/**
 * The {@link ConversationStore} contract (seed 002) as runtime-neutral checks, so every adapter —
 * memory, file system, IndexedDB in a browser, Durable Object storage in workerd, or your own —
 * is held to the same rules: missing → `undefined`; round trip; saves applied in call order;
 * unusable entries moved aside with one warning; invalid snapshots and ids refused with
 * `InvalidArgument`; odd ids kept apart. Give each check a fresh subject.
 *
 * @example
 * for (const check of storeContractChecks) it(check.name, async () => check.run(await makeSubject()));
 */
export const storeContractChecks: readonly StoreContractCheck[] = [
  {
    name: "load of a conversation never saved gives undefined and no warning",
    async run({ store, warnings }) {
      equal(await store.load(ID), undefined, "load of a missing id");
      equal(warnings.length, 0, "warnings");
    },
  },
  {
    name: "a saved snapshot loads back equal, as a copy",
    async run({ store }) {
      const snapshot = sampleSnapshot(ID, { turns: 3 });
      await store.save(snapshot);
      const loaded = await store.load(ID);
      equal(json(loaded), json(snapshot), "loaded snapshot");
      (loaded as ConversationSnapshot).steps.length = 0;
      snapshot.steps.length = 0;
      equal(
        json(await store.load(ID)),
        json(sampleSnapshot(ID, { turns: 3 })),
        "a second load after mutating the first result and the saved object",
      );
    },
  },
  {
    name: "a large snapshot with non-ASCII text round-trips",
    async run({ store }) {
      const snapshot = sampleSnapshot(ID, { turns: 12, padding: 40_000 });
      await store.save(snapshot);
      equal(json(await store.load(ID)), json(snapshot), "loaded large snapshot");
    },
  },
  {
    name: "saves of one conversation apply in call order; the last one wins",
    async run({ store }) {
      await Promise.all(
        Array.from({ length: 12 }, (_, i) =>
          store.save(sampleSnapshot(ID, { turns: i + 1, padding: i % 3 === 0 ? 20_000 : 0 })),
        ),
      );
      equal((await store.load(ID))?.turnCount, 12, "turnCount of the stored snapshot");
    },
  },
  {
    name: "conversations are kept apart, odd ids included",
    async run({ store }) {
      const ids = [
        ID,
        `${ID}-2`,
        "../../etc/passwd",
        "a/b\\c",
        "nul\u0000byte",
        "CON",
        ".",
        "..",
        "雨🌧",
        " spaced ",
        "x".repeat(256),
      ];
      for (const [i, id] of ids.entries()) await store.save(sampleSnapshot(id, { turns: i + 1 }));
      for (const [i, id] of ids.entries())
        equal((await store.load(id))?.turnCount, i + 1, `turnCount of ${JSON.stringify(id.slice(0, 20))}`);
    },
  },
  {
    name: "ids no store can hold are refused with InvalidArgument",
    async run({ store }) {
      for (const id of ["", "x".repeat(257)]) {
        await rejectsWith(store.load(id), ErrorCode.InvalidArgument, `load(${id.length} characters)`);
        await rejectsWith(store.save(sampleSnapshot(id)), ErrorCode.InvalidArgument, `save(${id.length} characters)`);
      }
    },
  },
  {
    name: "an invalid snapshot is refused with InvalidArgument and the stored one is kept",
    async run({ store }) {
      await store.save(sampleSnapshot(ID));
      const broken = { ...sampleSnapshot(ID, { turns: 5 }), turnCount: -1 };
      await rejectsWith(store.save(broken), ErrorCode.InvalidArgument, "save of a snapshot with turnCount -1");
      await rejectsWith(
        store.save({ ...sampleSnapshot(ID), version: 99 } as unknown as ConversationSnapshot),
        ErrorCode.InvalidArgument,
        "save of a version 99 snapshot",
      );
      equal((await store.load(ID))?.turnCount, 2, "turnCount of the stored snapshot");
    },
  },
  ...(
    [
      ["not JSON", () => "{ this is not json"],
      ["truncated JSON", () => JSON.stringify(sampleSnapshot(ID)).slice(0, 200)],
      ["JSON of another shape", () => JSON.stringify({ hello: "world" })],
      [
        "a snapshot of a newer version",
        () => JSON.stringify({ ...sampleSnapshot(ID), version: CONVERSATION_SNAPSHOT_VERSION + 1 }),
      ],
      ["another conversation's snapshot", () => JSON.stringify(sampleSnapshot(`${ID}-other`))],
    ] as const
  ).map(
    ([what, text]): StoreContractCheck => ({
      name: `an entry holding ${what} is moved aside with one warning, load gives undefined, and the next save works`,
      async run({ store, warnings, writeRaw }) {
        await writeRaw(ID, text());
        equal(await store.load(ID), undefined, "load of the unusable entry");
        equal(warnings.length, 1, "warnings after the first load");
        const warning = warnings[0] as ConversationStoreWarning;
        equal(warning.conversationId, ID, "warning.conversationId");
        truthy(
          typeof warning.movedTo === "string" && warning.movedTo !== "",
          `warning.movedTo is set (message: ${warning.message})`,
        );
        truthy(warning.message.includes(warning.movedTo as string), "the message says where the entry went");
        equal(await store.load(ID), undefined, "a second load");
        equal(warnings.length, 1, "warnings after the second load (the entry is no longer there)");
        await store.save(sampleSnapshot(ID));
        equal((await store.load(ID))?.turnCount, 2, "turnCount after saving again");
      },
    }),
  ),
  {
    name: "delete forgets a conversation, and deleting a missing one is fine",
    async run({ store }) {
      if (store.delete === undefined) return;
      await store.save(sampleSnapshot(ID));
      await store.delete(ID);
      equal(await store.load(ID), undefined, "load after delete");
      await store.delete(ID);
    },
  },
];

function json(value: unknown): string {
  return JSON.stringify(value);
}

function equal(actual: unknown, expected: unknown, what: string): void {
  if (!Object.is(actual, expected))
    throw new Error(`${what}: expected ${String(expected).slice(0, 200)}, got ${String(actual).slice(0, 200)}`);
}

function truthy(condition: boolean, what: string): void {
  if (!condition) throw new Error(`${what}: not so`);
}

async function rejectsWith(promise: Promise<unknown>, code: ErrorCode, what: string): Promise<void> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof SdkError && error.code === code) return;
    throw new Error(
      `${what}: expected SdkError ${code}, got ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}`,
    );
  }
  throw new Error(`${what}: expected SdkError ${code}, but it resolved`);
}
