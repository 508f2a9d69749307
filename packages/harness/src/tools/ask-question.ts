import { ToolError, defineBuiltinTool, objectSchema } from "./tool.js";

interface Question {
  question: string;
  choices: string[];
  isMultiSelect: boolean;
}

/**
 * `ask_question` (§9, switch `userQuestions`): multiple-choice questions to the user. Args:
 * `{questions: [{question, choices, is_multi_select?}]}`. The step waits in WAITING_FOR_USER with
 * a `questionsRequest` until the client sends `questionResponse`.
 */
export const askQuestionTool = defineBuiltinTool({
  name: "ask_question",
  toolSwitch: "userQuestions",
  description:
    "Ask the user one or more multiple-choice questions and wait for the answers. The user may also answer in free text or not at all.",
  parameters: objectSchema(
    {
      questions: {
        type: "array",
        items: objectSchema(
          {
            question: { type: "string" },
            choices: { type: "array", items: { type: "string" } },
            is_multi_select: { type: "boolean" },
          },
          ["question", "choices"],
        ),
      },
    },
    ["questions"],
  ),
  describe: () => ({}),
  async run(args, context) {
    const questions = parseQuestions(args["questions"]);
    const request = {
      questions: questions.map((q) => ({
        questionType: {
          case: "multipleChoice" as const,
          value: { question: q.question, choices: q.choices, isMultiSelect: q.isMultiSelect },
        },
      })),
    };
    const answer = await context.askUser(request);
    const action = { questionsRequest: request };
    if (answer.result.case !== "response") return { action, response: { cancelled: true } };
    const answers = questions.map((q, i) => {
      const a = answer.result.case === "response" ? answer.result.value.answers[i] : undefined;
      if (a?.answer.case !== "multipleChoiceAnswer") return { question: q.question, unanswered: true };
      const selected = a.answer.value.selectedChoiceIndices.map(
        (index) => q.choices[index] ?? `(invalid choice ${index})`,
      );
      const freeform = a.answer.value.freeformResponse;
      return { question: q.question, selected, ...(freeform === undefined || freeform === "" ? {} : { freeform }) };
    });
    return { action, response: { answers } };
  },
});

function parseQuestions(value: unknown): Question[] {
  if (!Array.isArray(value) || value.length === 0)
    throw new ToolError(`"questions" must be a non-empty array of {question, choices}`);
  return value.map((item, i) => {
    const q = item as Record<string, unknown>;
    if (typeof q?.["question"] !== "string") throw new ToolError(`questions[${i}].question must be a string`);
    const choices = q["choices"];
    if (!Array.isArray(choices) || !choices.every((c) => typeof c === "string"))
      throw new ToolError(`questions[${i}].choices must be an array of strings`);
    return { question: q["question"], choices: choices as string[], isMultiSelect: q["is_multi_select"] === true };
  });
}
