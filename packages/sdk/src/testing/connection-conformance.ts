import type { ConnectionCapabilities } from "../connection/capabilities.js";
import type { Connection } from "../connection/connection.js";
import { ErrorCode } from "../errors.js";
import type { Prompt } from "../prompt.js";
import {
  Probe,
  endedWell,
  equal,
  hasText,
  rejectsWith,
  sameUpdate,
  sdkError,
  showStep,
  truthy,
  type TurnRecord,
} from "./connection-conformance-probe.js";

/**
 * The turns the peer of a connection under test must play on cue. Each is one turn of the main
 * conversation, answered to the prompt {@link ConnectionConformanceSubject.prompt} gives for it:
 *
 * - `"text"`: streams a text answer (a step with `source` MODEL and `content`) in at least one
 *   step update, reports usage (the session's `totalTokenCount` grows), and ends normally.
 * - `"slow"`: streams a text answer in many updates, the first within a second or two, and goes
 *   on for longer than a check waits (30 s and more) unless halted or closed; a halt keeps what
 *   was streamed and counts the usage spent so far.
 * - `"failing"`: streams some text, then fails on the peer's side (the model call errors): the
 *   turn ends with an error.
 * - `"late"`: streams a step, and that step's last update arrives after the turn ended (the race
 *   of protocol §6.3: idle overtakes a step's DONE). A wire that never does this on its own is
 *   made to by the subject, e.g. a channel that holds the update back until the end.
 */
export type ConformancePlay = "text" | "slow" | "failing" | "late";

/** What a connection gives {@link connectionConformanceChecks}: made fresh for every check. */
export interface ConnectionConformanceSubject {
  /** Connected, with no turn yet and no turn observer (the kit attaches its own). */
  readonly connection: Connection;
  /** The prompt that makes the peer play `play` as the next turn; called right before each `send`, in order. */
  prompt(play: ConformancePlay): Prompt;
  /** Makes the peer start a `"text"` turn on its own (e.g. after a trigger). Needed when the wire has `triggers`. */
  startTurnOnItsOwn?(): Promise<void>;
  /** Bound of each wait of a check, in ms; default 10,000. */
  readonly waitMs?: number;
}

/** One behaviour every {@link Connection} must show: `run` throws an `Error` saying what broke. */
export interface ConnectionConformanceCheck {
  readonly name: string;
  /** The plays it sends the peer, in order (a peer of canned responses prepares them from this). */
  readonly plays: readonly ConformancePlay[];
  /** False when the wire lacks what the check needs (skip the check); absent: every wire. */
  needs?(capabilities: ConnectionCapabilities): boolean;
  run(subject: ConnectionConformanceSubject): Promise<void>;
}

/**
 * The {@link Connection} contract as runtime-neutral checks, like `storeContractChecks` for
 * stores: every turn observed whoever started it; steps recorded before any reader sees them; a
 * late update goes to its own turn; readers are independent; one turn at a time; usage counted
 * by the end; a halt ends every view with `Canceled` keeping partial output and usage; errors are
 * typed `SdkError`s; `disconnect` ends everything. Every wait is bounded: a broken connection
 * fails a check with a message, it never hangs it. Skip a check whose `needs` is false for the
 * wire's capabilities; give each check a fresh subject and close it afterwards.
 *
 * @example
 * for (const check of connectionConformanceChecks) {
 *   const applies = check.needs?.(LOCALHARNESS_CAPABILITIES) ?? true;
 *   it.skipIf(!applies)(check.name, async () => check.run(await makeSubject()));
 * }
 */
export const connectionConformanceChecks: readonly ConnectionConformanceCheck[] = [
  {
    name: "send starts a turn reported to the observer before its first step; every reader gets it whole from the start",
    plays: ["text"],
    async run(subject) {
      const probe = open(subject);
      const turn = await probe.send(subject.prompt("text"), "a text turn");
      reportedFresh(turn, true, "the turn send() started");
      const first = probe.read();
      endedWell(await probe.finish(first, "the first reader"), "the first reader");
      truthy(hasText(first.steps), `the first reader got text (it got ${first.steps.length} steps)`);
      const second = probe.read();
      endedWell(await probe.finish(second, "a reader opened after the end"), "a reader opened after the end");
      equal(
        second.steps.map(showStep).join(" | "),
        first.steps.map(showStep).join(" | "),
        "what a reader opened after the end got",
      );
    },
  },
  {
    name: "a turn the peer starts on its own is reported too, unsolicited, before its first step, and read like any other",
    plays: ["text"],
    needs: (capabilities) => capabilities.triggers,
    async run(subject) {
      if (subject.startTurnOnItsOwn === undefined)
        throw new Error("the wire has triggers, but the subject has no startTurnOnItsOwn()");
      const probe = open(subject);
      await probe.within(subject.startTurnOnItsOwn(), "startTurnOnItsOwn()");
      await probe.until(() => probe.turns.length > 0, "the turn the peer started to be reported");
      const turn = probe.turns[0] as TurnRecord;
      reportedFresh(turn, false, "the turn the peer started");
      const reader = probe.read();
      endedWell(
        await probe.finish(reader, "a reader of the turn the peer started"),
        "a reader of the turn the peer started",
      );
      truthy(hasText(reader.steps), "the reader got the turn's text");
      await probe.over(turn, "the turn the peer started");
      equal(turn.steps.length, reader.steps.length, "steps recorded vs steps read");
    },
  },
  {
    name: "each step is recorded before a reader sees it, and the end before a reader sees the end; a turn nobody reads is recorded whole",
    plays: ["text", "text"],
    async run(subject) {
      const probe = open(subject);
      const read = await probe.send(subject.prompt("text"), "a text turn");
      const reader = probe.read({
        onStep: (step, index) =>
          truthy(
            sameUpdate(read.steps[index], step),
            `step ${index} (${showStep(step)}) recorded before the reader saw it (recorded: ${showStep(read.steps[index])})`,
          ),
      });
      endedWell(await probe.finish(reader, "the reader"), "the reader");
      truthy(read.ending !== undefined, "the end recorded before the reader saw it");
      truthy(reader.steps.length > 0, "the reader got steps");
      const unread = await probe.send(subject.prompt("text"), "a second text turn");
      const outcome = await probe.over(unread, "the unread turn");
      equal(outcome.error, undefined, "the unread turn's error");
      truthy(unread.ending !== undefined, "the unread turn's end recorded");
      truthy(hasText(unread.steps), `the unread turn's text recorded (${unread.steps.length} updates)`);
    },
  },
  {
    name: "an update of a step that arrives after its turn ended goes to that turn, never to the next",
    plays: ["late", "text"],
    async run(subject) {
      const probe = open(subject);
      const turn = await probe.send(subject.prompt("late"), "a turn with a late step");
      endedWell(
        await probe.finish(probe.read(), "the reader of the turn with a late step"),
        "the reader of the turn with a late step",
      );
      await probe.until(() => turn.late.length > 0, "the late update to reach the turn's recorder (late)");
      const late = turn.late[0];
      truthy(
        late !== undefined && turn.steps.some((step) => step.id === late.id),
        `the late update (${showStep(late)}) is of one of the turn's steps`,
      );
      const next = await probe.send(subject.prompt("text"), "the next turn");
      const reader = probe.read();
      endedWell(await probe.finish(reader, "the reader of the next turn"), "the reader of the next turn");
      const lateIds = new Set(turn.late.map((step) => step.id));
      truthy(
        !next.steps.some((step) => lateIds.has(step.id)),
        "the next turn recorded no update of the earlier turn's late step",
      );
      truthy(
        !reader.steps.some((step) => lateIds.has(step.id)),
        "the next turn's reader got no update of the earlier turn's late step",
      );
    },
  },
  {
    name: "readers are independent: one that breaks out, is aborted or times out leaves the turn and the other readers going",
    plays: ["slow"],
    async run(subject) {
      const probe = open(subject);
      const turn = await probe.send(subject.prompt("slow"), "a slow turn");
      const whole = probe.read();
      const leaving = probe.read({ stopAfter: 1 });
      const controller = new AbortController();
      const aborted = probe.read({ signal: controller.signal, onStep: () => controller.abort() });
      const timed = probe.read({ timeoutMs: 50 });
      await probe.finish(leaving, "a reader breaking out after one step");
      const abortEnd = await probe.finish(aborted, "a reader whose signal aborted");
      if (abortEnd.error !== undefined) sdkError(abortEnd.error, "the aborted reader's error", ErrorCode.Canceled);
      const timedEnd = await probe.finish(timed, "a reader with timeoutMs 50");
      if (timedEnd.error !== undefined)
        sdkError(timedEnd.error, "the timed-out reader's error", ErrorCode.DeadlineExceeded);
      truthy(!probe.settled(turn) && !probe.connection.isIdle, "the turn still runs after those readers left");
      const seen = whole.steps.length;
      await probe.until(() => whole.steps.length > seen, "the remaining reader to get more steps");
      await probe.within(probe.connection.disconnect(), "disconnect()");
      const end = await probe.finish(whole, "the remaining reader after disconnect()");
      sdkError(end.error, "the remaining reader's error after disconnect()", ErrorCode.ConnectionClosed);
    },
  },
  {
    name: "one turn at a time: a send while a turn runs starts its turn only after that one ended",
    plays: ["text", "text"],
    async run(subject) {
      const probe = open(subject);
      const first = probe.start(subject.prompt("text"));
      const second = probe.start(subject.prompt("text"));
      const turns = await probe.within(Promise.all([first, second]), "two overlapping send() calls");
      const records = turns.map((turn, i) => probe.recordOf(turn, `the turn of send() ${i}`));
      equal(probe.turns.length, 2, "turns reported");
      equal(records[0], probe.turns[0], "the first send's turn is the first reported");
      for (const turn of records) equal((await probe.over(turn, "each turn")).error, undefined, "a turn's error");
      truthy((records[1] as TurnRecord).earlierOver, "the first turn was over when the second was reported");
    },
  },
  {
    name: "isIdle is true before any turn and after each, false while one runs",
    plays: ["text"],
    async run(subject) {
      const probe = open(subject);
      equal(probe.connection.isIdle, true, "isIdle of a fresh connection");
      const turn = await probe.send(subject.prompt("text"), "a text turn");
      const runningIdle = (): void =>
        truthy(probe.settled(turn) || !probe.connection.isIdle, "isIdle is false while the turn runs");
      runningIdle();
      endedWell(await probe.finish(probe.read({ onStep: runningIdle }), "the reader"), "the reader");
      await probe.over(turn, "the text turn");
      equal(probe.connection.isIdle, true, "isIdle once the turn is over");
    },
  },
  {
    name: "a turn's usage is counted in connection.usage by the time the turn is over",
    plays: ["text"],
    async run(subject) {
      const probe = open(subject);
      const before = probe.totalTokens();
      const turn = await probe.send(subject.prompt("text"), "a text turn");
      await probe.over(turn, "the text turn");
      truthy(
        probe.totalTokens() > before,
        `usage.total.totalTokenCount grew (${before} before, ${probe.totalTokens()} after)`,
      );
    },
  },
  {
    name: "a halt ends the turn and every view with Canceled, keeping the partial output and its usage; the next turn runs",
    plays: ["slow", "text"],
    needs: (capabilities) => capabilities.halt,
    async run(subject) {
      const probe = open(subject);
      const before = probe.totalTokens();
      const turn = await probe.send(subject.prompt("slow"), "a slow turn");
      const readers = [probe.read(), probe.read()];
      await probe.until(() => hasText(turn.steps), "the slow turn's first text");
      await probe.within(probe.connection.halt(), "halt()");
      for (const [i, reader] of readers.entries()) {
        const end = await probe.finish(reader, `reader ${i} after halt()`);
        sdkError(end.error, `reader ${i}'s error after halt()`, ErrorCode.Canceled);
        truthy(hasText(reader.steps), `reader ${i} got the partial text before Canceled`);
      }
      sdkError((await probe.over(turn, "the halted turn")).error, "the halted turn's outcome", ErrorCode.Canceled);
      sdkError(turn.ending?.error, "the halted turn's recorded end", ErrorCode.Canceled);
      truthy(hasText(turn.steps), "the partial text recorded");
      const after = probe.read();
      sdkError(
        (await probe.finish(after, "a reader opened after the halt")).error,
        "a reader opened after the halt",
        ErrorCode.Canceled,
      );
      truthy(hasText(after.steps), "a reader opened after the halt got the partial text");
      truthy(
        probe.totalTokens() > before,
        `the halted turn's usage counted (${before} before, ${probe.totalTokens()} after)`,
      );
      equal(probe.connection.isIdle, true, "isIdle after the halt");
      const next = await probe.send(subject.prompt("text"), "the turn after the halt");
      equal(
        (await probe.over(next, "the turn after the halt")).error,
        undefined,
        "the error of the turn after the halt",
      );
    },
  },
  {
    name: "a turn that fails on the peer ends every reader with the turn's typed SdkError after its steps; the next turn runs",
    plays: ["failing", "text"],
    async run(subject) {
      const probe = open(subject);
      const turn = await probe.send(subject.prompt("failing"), "a failing turn");
      const reader = probe.read();
      const end = await probe.finish(reader, "the reader of the failing turn");
      const error = sdkError(end.error, "the reader's error");
      truthy(
        error.code !== ErrorCode.Canceled && error.code !== ErrorCode.ConnectionClosed,
        `the failure is told from a halt or a close (code ${error.code})`,
      );
      truthy(error.message !== "", "the error has a message");
      truthy(hasText(reader.steps), "the reader got the text streamed before the failure");
      const outcome = sdkError((await probe.over(turn, "the failing turn")).error, "the failing turn's outcome");
      equal(outcome.code, error.code, "the outcome's code vs the reader's");
      const next = await probe.send(subject.prompt("text"), "the turn after the failure");
      equal(
        (await probe.over(next, "the turn after the failure")).error,
        undefined,
        "the error of the turn after the failure",
      );
    },
  },
  {
    name: "calls refused up front fail with typed errors and start no turn: a blank prompt, an aborted signal, a second observer",
    plays: ["text"],
    async run(subject) {
      const probe = open(subject);
      const empty = probe.read();
      endedWell(await probe.finish(empty, "a reader before any turn"), "a reader before any turn");
      equal(empty.steps.length, 0, "steps read before any turn");
      await rejectsWith(probe, probe.start(""), "send('')", ErrorCode.InvalidArgument);
      await rejectsWith(
        probe,
        probe.start("never sent", { signal: AbortSignal.abort() }),
        "send() with an aborted signal",
        ErrorCode.Canceled,
      );
      try {
        probe.connection.observeTurns({ turnStarted: () => undefined });
        throw new Error("a second observeTurns() was accepted");
      } catch (error) {
        sdkError(error, "a second observeTurns()", ErrorCode.FailedPrecondition);
      }
      equal(probe.turns.length, 0, "turns reported after the refused calls");
      const turn = await probe.send(subject.prompt("text"), "a text turn after the refusals");
      equal((await probe.over(turn, "the text turn")).error, undefined, "the text turn's error");
    },
  },
  {
    name: "disconnect ends everything: the running turn and its readers with ConnectionClosed, onClosed once; later sends are refused",
    plays: ["slow"],
    async run(subject) {
      const probe = open(subject);
      const { connection } = probe;
      const reasons: unknown[] = [];
      connection.onClosed?.((reason) => reasons.push(reason));
      const turn = await probe.send(subject.prompt("slow"), "a slow turn");
      const readers = [probe.read(), probe.read()];
      await probe.until(() => turn.steps.length > 0, "the slow turn's first step");
      await probe.within(connection.disconnect(), "disconnect()");
      for (const [i, reader] of readers.entries()) {
        sdkError(
          (await probe.finish(reader, `reader ${i} after disconnect()`)).error,
          `reader ${i}'s error after disconnect()`,
          ErrorCode.ConnectionClosed,
        );
      }
      sdkError(
        (await probe.over(turn, "the running turn")).error,
        "the running turn's outcome",
        ErrorCode.ConnectionClosed,
      );
      await probe.within(connection.disconnect(), "a second disconnect()");
      await rejectsWith(probe, probe.start("after the end"), "send() after disconnect()", ErrorCode.ConnectionClosed);
      equal(probe.turns.length, 1, "turns reported");
      if (connection.onClosed !== undefined) {
        equal(reasons.length, 1, "onClosed calls");
        sdkError(reasons[0], "the onClosed reason", ErrorCode.ConnectionClosed);
        let lateReason: unknown;
        connection.onClosed((reason) => (lateReason = reason));
        sdkError(
          lateReason,
          "the reason an onClosed listener added after the close gets at once",
          ErrorCode.ConnectionClosed,
        );
      }
    },
  },
  {
    name: "isIdle is true once disconnect ended a running turn",
    plays: ["slow"],
    async run(subject) {
      const probe = open(subject);
      const turn = await probe.send(subject.prompt("slow"), "a slow turn");
      await probe.until(() => turn.steps.length > 0, "the slow turn's first step");
      await probe.within(probe.connection.disconnect(), "disconnect()");
      await probe.over(turn, "the running turn");
      equal(probe.connection.isIdle, true, "isIdle after disconnect()");
    },
  },
];

function open(subject: ConnectionConformanceSubject): Probe {
  return new Probe(subject.connection, subject.waitMs);
}

/** Fails unless `turn` was reported as started by send (or not) before it held anything, its recorder attached. */
function reportedFresh(turn: TurnRecord, solicited: boolean, what: string): void {
  equal(turn.solicited, solicited, `${what}: solicited`);
  equal(turn.sizeAtReport, 0, `${what}: entries it held when reported`);
  if (turn.attachError !== undefined)
    throw new Error(`${what}: the observer could not attach its recorder: ${String(turn.attachError)}`);
}
