import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, it } from "vitest";
import type { Channel, Transport } from "@antigravity-ts/sdk";
import { createHarnessConnection, type ConnectionCapabilities } from "@antigravity-ts/sdk/connection";
import {
  connectionConformanceChecks,
  type ConformancePlay,
  type ConnectionConformanceCheck,
  type ConnectionConformanceSubject,
} from "@antigravity-ts/sdk/testing";
import { StepUpdate_State, TrajectoryStateUpdate_State, decodeOutputEvent } from "@antigravity-ts/sdk/wire";
import { WAIT_MS } from "./harness-launcher.js";

/**
 * Checks `HarnessConnection` fails today, with the bug: every suite that runs it passes these as
 * {@link ConnectionConformanceOptions.knownFailures}, so fixing the bug flips them to a failure
 * that says to remove the entry.
 */
export const HARNESS_CONNECTION_KNOWN_FAILURES: Readonly<Record<string, string>> = {};

/** A conformance subject the test closes after its check. */
export interface ClosableConformanceSubject extends ConnectionConformanceSubject {
  close(): Promise<void>;
}

/** Options of {@link defineConnectionConformance}. */
export interface ConnectionConformanceOptions {
  /**
   * Checks the connection is known to fail, by name, with the reason (a bug to fix): they run as
   * `it.fails`, so the suite says so once the bug is fixed.
   */
  knownFailures?: Readonly<Record<string, string>>;
  /**
   * The plays the peer can play (default: all). A check that sends another is skipped: a peer of
   * canned responses (Gemini CLI's `--fake-responses`) streams at once, so it has no `"slow"` turn.
   */
  playable?: readonly ConformancePlay[];
}

/**
 * Runs `connectionConformanceChecks` as one `it` per check against the connection `open` makes
 * afresh for each (given the check, whose `plays` a peer of canned responses prepares); a check
 * the wire's `capabilities` rule out, or that needs a play the peer cannot play, is skipped.
 */
export function defineConnectionConformance(
  name: string,
  capabilities: ConnectionCapabilities,
  open: (check: ConnectionConformanceCheck) => Promise<ClosableConformanceSubject>,
  options: ConnectionConformanceOptions = {},
): void {
  describe(`connection conformance: ${name}`, () => {
    for (const check of connectionConformanceChecks) {
      const playable = options.playable;
      const applies =
        (check.needs?.(capabilities) ?? true) &&
        (playable === undefined || check.plays.every((play) => playable.includes(play)));
      const known = options.knownFailures?.[check.name];
      const test = !applies ? it.skip : known === undefined ? it : it.fails;
      test(check.name, async () => {
        const subject = await open(check);
        try {
          await check.run(subject);
        } finally {
          await subject.close();
        }
      });
    }
  });
}

/** In the final text of the `"late"` play: {@link lateStepTransport} delivers that update after the turn's end. */
export const LATE_MARKER = "[delivered after the end]";

/** The prompts of each play, answered by {@link CONFORMANCE_SCRIPT}. */
export const CONFORMANCE_PROMPTS: Readonly<Record<ConformancePlay, string>> = {
  text: "conformance text turn",
  slow: "conformance slow turn",
  failing: "conformance failing turn",
  late: "conformance late turn",
};

/** The scripted model's script (packages/harness script-format.ts) that plays every {@link ConformancePlay}. */
export const CONFORMANCE_SCRIPT = {
  turns: [
    {
      match: CONFORMANCE_PROMPTS.slow,
      calls: [{ text: Array.from({ length: 600 }, (_, i) => `word${i}`).join(" "), chunkWords: 1, chunkDelayMs: 100 }],
    },
    {
      match: CONFORMANCE_PROMPTS.failing,
      calls: [
        {
          text: "About to fail in the middle of this answer.",
          error: { message: "the conformance script fails this model call" },
        },
      ],
    },
    { match: CONFORMANCE_PROMPTS.late, calls: [{ text: `This answer's last update arrives late ${LATE_MARKER}` }] },
    // Also the trigger's turn: its prompt is "[automated trigger] conformance text turn".
    {
      match: CONFORMANCE_PROMPTS.text,
      calls: [
        { thinking: "A greeting is due.", text: "Hello from the reference harness, streamed in several chunks." },
      ],
    },
  ],
};

/** Writes {@link CONFORMANCE_SCRIPT} to a fresh temporary file (for `ANTIGRAVITY_SCRIPT`) and returns its path. */
export async function writeConformanceScript(): Promise<string> {
  const file = path.join(await mkdtemp(path.join(tmpdir(), "antigravity-conformance-")), "script.json");
  await writeFile(file, JSON.stringify(CONFORMANCE_SCRIPT));
  return file;
}

/**
 * A `HarnessConnection` subject over `transport` (a harness playing {@link CONFORMANCE_SCRIPT}):
 * prompts from {@link CONFORMANCE_PROMPTS}, a trigger for a turn the harness starts on its own,
 * and the channel wrapped in {@link lateStepTransport} for the `"late"` play.
 */
export async function harnessConformanceSubject(transport: Transport): Promise<ClosableConformanceSubject> {
  const connection = await createHarnessConnection({
    transport: lateStepTransport(transport),
    config: {},
    timeoutMs: WAIT_MS,
  });
  return {
    connection,
    prompt: (play) => CONFORMANCE_PROMPTS[play],
    startTurnOnItsOwn: () => connection.sendTrigger(CONFORMANCE_PROMPTS.text),
    close: () => connection.disconnect(),
  };
}

/**
 * `transport` with the race of protocol §6.3 made to happen: the DONE update of a step whose
 * text holds {@link LATE_MARKER} is held back and delivered right after the next FULLY_IDLE, as
 * when idle overtakes a step's last update. Every other frame passes unchanged and in order.
 */
export function lateStepTransport(transport: Transport): Transport {
  return {
    reconnect: transport.reconnect,
    async connect(options) {
      const channel = await transport.connect(options);
      return {
        send: (frame) => channel.send(frame),
        close: (closeOptions) => channel.close(closeOptions),
        frames: () => holdLateUpdates(channel),
      } satisfies Channel;
    },
  };
}

async function* holdLateUpdates(channel: Channel): AsyncGenerator<string> {
  let held: string | undefined;
  for await (const frame of channel.frames()) {
    if (!frame.includes(LATE_MARKER) && (held === undefined || !frame.includes("trajectoryStateUpdate"))) {
      yield frame;
      continue;
    }
    const event = decodeOutputEvent(frame).event;
    if (event.case === "stepUpdate" && event.value.state === StepUpdate_State.DONE && held === undefined) {
      held = frame;
      continue;
    }
    yield frame;
    if (
      event.case === "trajectoryStateUpdate" &&
      event.value.state === TrajectoryStateUpdate_State.FULLY_IDLE &&
      held !== undefined
    ) {
      yield held;
      held = undefined;
    }
  }
}
