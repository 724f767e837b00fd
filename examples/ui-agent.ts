import type { RecordedRequest, ServerScript, ServerTurnOptions } from "../src/testing";
import { followUpTurn, modernTurn } from "./demo-agent";

/**
 * The agent of the chat-UI examples (examples/assistant-ui, examples/copilotkit): the demo agent's
 * AG-UI 1.0 turn first (chunked reasoning, a tool call, an encrypted value on the reasoning message and
 * one on the tool call, text), then its follow-up, which says how many of the two values came back.
 * A message containing "cut" gets a stream that stops mid-reasoning without `RUN_FINISHED` (the
 * response ends cleanly: only the reasoning pipeline can tell it was truncated). The first turn asked
 * again in a thread that had it (a UI's regenerate) gets a short answer of its own, with no value.
 *
 * The run's `threadId` and `runId` are the ones the UI library sent (each library makes its own).
 */
export const uiAgent: ServerScript = (request) => {
  const input = runInputOf(request);
  const userMessages = input.messages.filter((m) => m.role === "user");
  const last = userMessages[userMessages.length - 1];
  const first = userMessages.length <= 1;
  const turn =
    typeof last?.content === "string" && /\bcut\b/i.test(last.content)
      ? truncatedTurn()
      : first && answeredThreads.has(input.threadId)
        ? regeneratedTurn(input.runId)
        : first
          ? modernTurn()
          : // Every follow-up answer is a message of its own (the demo's has one fixed id).
            withAnswerId(followUpTurn(request), `answer-${input.runId}`);
  if (first) answeredThreads.add(input.threadId);
  return withRunIds(turn, input.threadId, input.runId);
};

/** The threads whose first turn was answered: asked again, it is a regenerate. */
const answeredThreads = new Set<string>();

/** A regenerated first answer: text only, under ids of its own (the first turn's are fixed). */
function regeneratedTurn(runId: string): ServerTurnOptions {
  const messageId = `answer-${runId}`;
  return {
    framePauseMs: 25,
    events: [
      { type: "RUN_STARTED", threadId: "", runId: "" },
      { type: "TEXT_MESSAGE_START", messageId, role: "assistant" },
      { type: "TEXT_MESSAGE_CONTENT", messageId, delta: "On second thought: check the fares page for Saturday." },
      { type: "TEXT_MESSAGE_END", messageId },
      { type: "RUN_FINISHED", threadId: "", runId: "" },
    ],
  };
}

/** Reasoning that starts streaming and then the response just ends: no `REASONING_END`, no `RUN_FINISHED`. */
function truncatedTurn(): ServerTurnOptions {
  const events: unknown[] = [
    { type: "RUN_STARTED", threadId: "", runId: "" },
    { type: "REASONING_START", messageId: "span-cut" },
    { type: "REASONING_MESSAGE_START", messageId: "reasoning-cut", role: "reasoning" },
    ...["Looking ", "at ", "the ", "timetable "].map((delta) => ({
      type: "REASONING_MESSAGE_CONTENT",
      messageId: "reasoning-cut",
      delta,
    })),
  ];
  return { framePauseMs: 25, events, endAfter: events.length };
}

interface SentInput {
  threadId: string;
  runId: string;
  messages: Array<{ role?: unknown; content?: unknown }>;
}

function runInputOf(request: RecordedRequest): SentInput {
  const json = (request.json ?? {}) as Partial<Record<keyof SentInput, unknown>>;
  return {
    threadId: typeof json.threadId === "string" ? json.threadId : "thread-ui",
    runId: typeof json.runId === "string" ? json.runId : `run-${request.index + 1}`,
    messages: Array.isArray(json.messages) ? (json.messages as SentInput["messages"]) : [],
  };
}

/** The turn with `messageId` set to `id` on every event that has one. */
function withAnswerId(turn: ServerTurnOptions, id: string): ServerTurnOptions {
  const events = turn.events.map((event) =>
    typeof (event as { messageId?: unknown }).messageId === "string" ? { ...(event as object), messageId: id } : event,
  );
  return { ...turn, events };
}

/** The turn with its run lifecycle events naming the request's thread and run. */
function withRunIds(turn: ServerTurnOptions, threadId: string, runId: string): ServerTurnOptions {
  const events = turn.events.map((event) => {
    const type = (event as { type?: unknown }).type;
    return type === "RUN_STARTED" || type === "RUN_FINISHED" ? { ...(event as object), threadId, runId } : event;
  });
  return { ...turn, events };
}
