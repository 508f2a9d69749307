// Fake harness that dies before the stdio handshake (protocol §3: no bytes on stdout).
process.stderr.write("fake harness: starting\n");
process.stderr.write("fatal: cannot open the model configuration (fake)\n");
process.exit(3);
