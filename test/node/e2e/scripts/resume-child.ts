// Resumes a continuation in a process of its own (continuations.test.ts): input as JSON in
// RESUME_INPUT, the outcome as one JSON line on stdout.
import { Agent, SdkError, WebSocketTransport, allowAll, deferToUser } from "@antigravity-ts/sdk";

interface Input {
  port: number;
  apiKey: string;
  secret: string;
  continuation: unknown;
  toolCallId: string;
  approved: boolean;
}

const input = JSON.parse(process.env["RESUME_INPUT"] ?? "{}") as Input;
const agent = new Agent({
  transport: new WebSocketTransport({ host: "127.0.0.1", port: input.port, apiKey: input.apiKey }),
  policies: [deferToUser("run_command"), allowAll()],
  continuationSecret: input.secret,
});
try {
  const { agent: started, stream } = await agent.resume(
    input.continuation,
    { toolCallId: input.toolCallId, approved: input.approved },
    { timeoutMs: 20_000 },
  );
  const final = await stream.final();
  await started.stop();
  process.stdout.write(
    `${JSON.stringify({ text: final.text, steps: final.steps.map((s) => ({ stepIndex: s.stepIndex, status: s.status, name: s.toolCalls[0]?.name })), awaiting: final.awaitingConfirmation ?? null })}\n`,
  );
} catch (error) {
  const e = SdkError.from(error);
  process.stdout.write(`${JSON.stringify({ error: { code: e.code, message: e.message } })}\n`);
}
