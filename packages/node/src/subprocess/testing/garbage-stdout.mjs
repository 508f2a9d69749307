// Fake harness that answers the handshake with text instead of a length-prefixed OutputConfig,
// then stays alive until its stdin closes, like a real harness would.
process.stderr.write("fake harness: printing a banner on stdout\n");
process.stdout.write("this is not a handshake reply\n");
process.stdin.on("data", () => {});
process.stdin.on("end", () => process.exit(0));
