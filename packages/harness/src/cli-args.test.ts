import { describe, expect, it } from "vitest";
import { CliUsageError, parseCliArgs, processTitle } from "./cli-args.js";

describe("parseCliArgs", () => {
  it("runs stdio mode with no arguments, even when remote-client variables are set", () => {
    expect(parseCliArgs([], { ANTIGRAVITY_HARNESS_PORT: "9000", ANTIGRAVITY_API_KEY: "k" })).toEqual({ mode: "stdio" });
    expect(parseCliArgs([], { ANTIGRAVITY_SCRIPT: "/s.json" })).toEqual({ mode: "stdio", script: "/s.json" });
  });

  it("parses --listen HOST:PORT with its options", () => {
    expect(
      parseCliArgs(
        [
          "--listen",
          "0.0.0.0:8080",
          "--api-key",
          "secret",
          "--storage",
          "/st",
          "--workspace=/ws",
          "--script",
          "/s.json",
        ],
        {},
      ),
    ).toEqual({
      mode: "listen",
      host: "0.0.0.0",
      port: 8080,
      apiKey: "secret",
      storage: "/st",
      workspace: "/ws",
      script: "/s.json",
    });
    expect(parseCliArgs(["--listen", "[::1]:0"], {})).toMatchObject({ host: "::1", port: 0 });
    expect(parseCliArgs(["--listen=9001"], {})).toMatchObject({ host: "127.0.0.1", port: 9001 });
  });

  it("serves the Interactions API with --interactions-api, only with --listen", () => {
    expect(parseCliArgs(["--listen", "127.0.0.1:0", "--interactions-api"], {})).toEqual({
      mode: "listen",
      host: "127.0.0.1",
      port: 0,
      interactionsApi: true,
    });
    expect(parseCliArgs(["--listen", "--interactions-api"], { ANTIGRAVITY_HARNESS_PORT: "7001" })).toMatchObject({
      port: 7001,
      interactionsApi: true,
    });
    expect(() => parseCliArgs(["--interactions-api"], {})).toThrow(/only valid with --listen/);
  });

  it("fills a bare --listen from the environment", () => {
    expect(
      parseCliArgs(["--listen"], {
        ANTIGRAVITY_HARNESS_HOST: "10.0.0.1",
        ANTIGRAVITY_HARNESS_PORT: "7000",
        ANTIGRAVITY_API_KEY: "envkey",
      }),
    ).toEqual({
      mode: "listen",
      host: "10.0.0.1",
      port: 7000,
      apiKey: "envkey",
    });
    expect(parseCliArgs(["--listen"], {})).toEqual({ mode: "listen", host: "127.0.0.1", port: 8000 });
  });

  it("takes the key from a file, and the memory limits", () => {
    expect(
      parseCliArgs(
        [
          "--listen",
          "1.2.3.4:5",
          "--api-key-file",
          "/k",
          "--keep-ended-sessions",
          "3",
          "--ended-session-ttl=60",
          "--max-frame-bytes",
          "0",
        ],
        { ANTIGRAVITY_API_KEY: "ignored" },
      ),
    ).toEqual({
      mode: "listen",
      host: "1.2.3.4",
      port: 5,
      apiKeyFile: "/k",
      keepEndedSessions: 3,
      endedSessionTtlMs: 60_000,
      maxFrameBytes: 0,
    });
    expect(parseCliArgs(["--keep-ended-sessions", "0"], {})).toEqual({ mode: "stdio", keepEndedSessions: 0 });
    expect(() => parseCliArgs(["--listen", "--api-key", "k", "--api-key-file", "/k"], {})).toThrow(
      /either --api-key or --api-key-file/,
    );
    expect(() => parseCliArgs(["--api-key-file", "/k"], {})).toThrow(/only valid with --listen/);
    expect(() => parseCliArgs(["--listen", "--max-frame-bytes", "-1"], {})).toThrow(/whole number/);
    expect(() => parseCliArgs(["--listen", "--ended-session-ttl", "1e3"], {})).toThrow(/whole number/);
  });

  it("takes the file tools' time limit in both modes, and refuses 0", () => {
    expect(parseCliArgs(["--tool-timeout-ms", "1500"], {})).toEqual({ mode: "stdio", toolTimeoutMs: 1500 });
    expect(parseCliArgs(["--listen", "1.2.3.4:5", "--tool-timeout-ms=60000"], {})).toMatchObject({
      mode: "listen",
      toolTimeoutMs: 60_000,
    });
    expect(() => parseCliArgs(["--tool-timeout-ms", "0"], {})).toThrow(/at least 1 ms/);
    expect(() => parseCliArgs(["--tool-timeout-ms", "1s"], {})).toThrow(/whole number/);
    expect(parseCliArgs(["--listen", "1.2.3.4:5", "--confirmation-hold-ms", "0"], {})).toMatchObject({
      mode: "listen",
      confirmationHoldMs: 0,
    });
    expect(parseCliArgs(["--confirmation-hold-ms=90000"], {})).toEqual({ mode: "stdio", confirmationHoldMs: 90_000 });
    expect(() => parseCliArgs(["--confirmation-hold-ms", "-1"], {})).toThrow(/whole number/);
  });

  it("keeps --api-key values and --api-key-file paths out of the process title", () => {
    expect(processTitle(["--listen", "127.0.0.1:0", "--api-key", "s3cret", "--storage", "/st"])).toBe(
      "antigravity-harness --listen 127.0.0.1:0 --api-key *** --storage /st",
    );
    expect(processTitle(["--api-key=s3cret", "--api-key"])).toBe("antigravity-harness --api-key=*** --api-key");
    expect(processTitle(["--listen", "--api-key-file", "/etc/k", "--api-key-file=/etc/k"])).toBe(
      "antigravity-harness --listen --api-key-file *** --api-key-file=***",
    );
  });

  it("rejects what it cannot run, saying why", () => {
    expect(() => parseCliArgs(["--bogus"], {})).toThrow(CliUsageError);
    expect(() => parseCliArgs(["--listen", "host:99999"], {})).toThrow(/port must be 0-65535/);
    expect(() => parseCliArgs(["--listen", "a:b:c"], {})).toThrow(/HOST:PORT/);
    expect(() => parseCliArgs(["--api-key", "k"], {})).toThrow(/only valid with --listen/);
    expect(() => parseCliArgs(["--listen", "1.2.3.4:1", "--script"], {})).toThrow(/needs a value/);
    expect(parseCliArgs(["--help"], {})).toEqual({ mode: "help" });
    expect(() => parseCliArgs(["--bogus=1"], {})).toThrow(/unknown argument "--bogus"; run antigravity-harness --help/);
    expect(() => parseCliArgs(["stray"], {})).toThrow(/unknown argument "stray"/);
    expect(() => parseCliArgs(["--workspace="], {})).toThrow(/--workspace needs a value/);
    expect(() => parseCliArgs(["--listen", "--storage", "--script", "s.json"], {})).toThrow(
      /unknown argument "s.json"/,
    ); // a value flag takes the next argument, as before
  });

  it("reads --flag=value and --flag value alike (node:util parseArgs)", () => {
    expect(parseCliArgs(["--listen=[::1]:0", "--storage=/s", "--max-frame-bytes=10"], {})).toEqual(
      parseCliArgs(["--listen", "[::1]:0", "--storage", "/s", "--max-frame-bytes", "10"], {}),
    );
    expect(parseCliArgs(["--listen=[::1]:0"], {})).toMatchObject({ mode: "listen", host: "::1", port: 0 });
  });
});
