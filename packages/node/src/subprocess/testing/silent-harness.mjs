// Fake harness that never answers the handshake (a hung or much older binary), until stdin closes.
process.stderr.write("fake harness: thinking about it\n");
process.stdin.on("data", () => {});
process.stdin.on("end", () => process.exit(0));
