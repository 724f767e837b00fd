/**
 * A two-turn conversation shared by the integration tests: turn 1 streams chunked reasoning inside
 * a span, an answer, a tool call and encrypted values on all three kinds of target; turn 2 answers.
 */
import { ev } from "../../src/testing/builders";

/** Deltas that put multi-byte characters (2, 3 and 4 bytes in UTF-8) all over the frames. */
export const THOUGHTS = ["Let me ", "weigh ", "the café's ", "漢字 options ", "— carefully 🤔", " then answer."];
export const ANSWER = ["Prices: ", "€12 ", "and ", "¥1,500 ", "✓"];

/**
 * Encrypted values as hostile as an opaque string gets: unicode, escapes, JSON look-alikes,
 * whitespace, a lone surrogate, an empty string and a large one. Each must come back unchanged.
 */
export const VALUES = {
  reasoning: 'gAAAAABl+/=\u00e9\u6f22\ud83d\ude00 "quoted" \\ back\\slash\n\ttab {"json":[1,2]} \u2028\u2029 \udc00',
  toolCall: `${"ZW5jcnlwdGVk".repeat(2000)}==`,
  answer: "",
};

export const turnOne = [
  ev.runStarted("run-1", { threadId: "thread-1" }),
  ev.reasoningStart("span-1"),
  ...THOUGHTS.map((d, i) => ev.reasoningChunk(i === 0 ? "think-1" : undefined, d)),
  ev.reasoningEnd("span-1"),
  ev.encryptedValue("message", "think-1", VALUES.reasoning),
  ev.textStart("answer-1"),
  ...ANSWER.map((d) => ev.textContent("answer-1", d)),
  ev.textEnd("answer-1"),
  ev.toolCallStart("call-1", "lookup_prices", { parentMessageId: "answer-1" }),
  ev.toolCallArgs("call-1", '{"item":"café"}'),
  ev.toolCallEnd("call-1"),
  ev.encryptedValue("tool-call", "call-1", VALUES.toolCall),
  ev.encryptedValue("message", "answer-1", VALUES.answer),
  ev.runFinished("run-1", { threadId: "thread-1" }),
];

export const turnTwo = [
  ev.runStarted("run-2", { threadId: "thread-1" }),
  ev.textStart("answer-2"),
  ev.textContent("answer-2", "Restored."),
  ev.textEnd("answer-2"),
  ev.runFinished("run-2", { threadId: "thread-1" }),
];
