import type { Message } from "@ag-ui/core";
import type { AguiEvent } from "../core/types";
import type { IncompleteItem, ReasoningDuration, ReasoningHistory, ValueIssuer } from "../history/types";
import { listArgument, objectArgument, stringArgument } from "./arguments";

/**
 * Deterministic event builders that read well in marble diagrams. Every builder returns a plain
 * object exactly as it would arrive on the wire; optional fields appear only when given.
 * `extra` merges last, so any field (including malformed ones) can be set for negative tests.
 */
type Extra = Record<string, unknown>;
/** A builder's `extra` fields: an object that can be read. */
const more = (extra: Extra | undefined, builder: string): Extra => objectArgument(extra, builder, "extra fields");
const e = (type: string, fields: Extra, extra?: Extra): AguiEvent => ({
  type,
  ...fields,
  ...more(extra, `the ${type} builder`),
});
const opt = (key: string, value: unknown): Extra => (value === undefined ? {} : { [key]: value });

export const ev = {
  // Run lifecycle
  runStarted: (runId = "r1", extra?: Extra) => e("RUN_STARTED", { threadId: "t1", runId }, extra),
  runFinished: (runId = "r1", extra?: Extra) => e("RUN_FINISHED", { threadId: "t1", runId }, extra),
  runError: (message = "boom", extra?: Extra) => e("RUN_ERROR", { message }, extra),
  stepStarted: (stepName: string, extra?: Extra) => e("STEP_STARTED", { stepName }, extra),
  stepFinished: (stepName: string, extra?: Extra) => e("STEP_FINISHED", { stepName }, extra),

  // Reasoning
  reasoningStart: (messageId = "s1", extra?: Extra) => e("REASONING_START", { messageId }, extra),
  reasoningEnd: (messageId = "s1", extra?: Extra) => e("REASONING_END", { messageId }, extra),
  reasoningMessageStart: (messageId = "m1", extra?: Extra) =>
    e("REASONING_MESSAGE_START", { messageId, role: "reasoning" }, extra),
  reasoningMessageContent: (messageId: string, delta: string, extra?: Extra) =>
    e("REASONING_MESSAGE_CONTENT", { messageId, delta }, extra),
  reasoningMessageEnd: (messageId = "m1", extra?: Extra) => e("REASONING_MESSAGE_END", { messageId }, extra),
  /** `reasoningChunk(undefined, "x")` is an id-less continuation; `reasoningChunk("m1")` has no delta. */
  reasoningChunk: (messageId?: string, delta?: string, extra?: Extra) =>
    e("REASONING_MESSAGE_CHUNK", { ...opt("messageId", messageId), ...opt("delta", delta) }, extra),
  encryptedValue: (subtype: string, entityId: string, encryptedValue: string, extra?: Extra) =>
    e("REASONING_ENCRYPTED_VALUE", { subtype, entityId, encryptedValue }, extra),

  // Text messages
  textStart: (messageId = "a1", role: string | undefined = "assistant", extra?: Extra) =>
    e("TEXT_MESSAGE_START", { messageId, ...opt("role", role) }, extra),
  textContent: (messageId: string, delta: string, extra?: Extra) =>
    e("TEXT_MESSAGE_CONTENT", { messageId, delta }, extra),
  textEnd: (messageId = "a1", extra?: Extra) => e("TEXT_MESSAGE_END", { messageId }, extra),
  textChunk: (messageId?: string, delta?: string, extra?: Extra) =>
    e("TEXT_MESSAGE_CHUNK", { ...opt("messageId", messageId), ...opt("delta", delta) }, extra),

  // Tool calls
  toolCallStart: (toolCallId = "tc1", toolCallName = "search", extra?: Extra) =>
    e("TOOL_CALL_START", { toolCallId, toolCallName }, extra),
  toolCallArgs: (toolCallId: string, delta: string, extra?: Extra) => e("TOOL_CALL_ARGS", { toolCallId, delta }, extra),
  toolCallEnd: (toolCallId = "tc1", extra?: Extra) => e("TOOL_CALL_END", { toolCallId }, extra),
  toolCallChunk: (toolCallId?: string, toolCallName?: string, delta?: string, extra?: Extra) =>
    e(
      "TOOL_CALL_CHUNK",
      { ...opt("toolCallId", toolCallId), ...opt("toolCallName", toolCallName), ...opt("delta", delta) },
      extra,
    ),
  toolCallResult: (messageId: string, toolCallId: string, content: string, extra?: Extra) =>
    e("TOOL_CALL_RESULT", { messageId, toolCallId, content }, extra),

  // Standalone / state
  messagesSnapshot: (messages: readonly Message[], extra?: Extra) => e("MESSAGES_SNAPSHOT", { messages }, extra),
  stateSnapshot: (snapshot: unknown = {}, extra?: Extra) => e("STATE_SNAPSHOT", { snapshot }, extra),
  stateDelta: (delta: unknown[] = [], extra?: Extra) => e("STATE_DELTA", { delta }, extra),
  custom: (name = "c", value: unknown = null, extra?: Extra) => e("CUSTOM", { name, value }, extra),
  raw: (event: unknown = {}, extra?: Extra) => e("RAW", { event }, extra),
  activitySnapshot: (
    messageId: string,
    activityType = "progress",
    content: Record<string, unknown> = {},
    extra?: Extra,
  ) => e("ACTIVITY_SNAPSHOT", { messageId, activityType, content }, extra),
  subagentStarted: (subagentRunId: string, extra?: Extra) =>
    e("SUBAGENT_STARTED", { subagentRunId, name: "helper" }, extra),
  subagentFinished: (subagentRunId: string, extra?: Extra) => e("SUBAGENT_FINISHED", { subagentRunId }, extra),

  // Retired 0.x shapes (no ids on the wire, R-DEP-5)
  thinkingStart: (fields: { title?: string } & Extra = {}) => e("THINKING_START", {}, fields),
  thinkingEnd: (extra?: Extra) => e("THINKING_END", {}, extra),
  thinkingTextMessageStart: (extra?: Extra) => e("THINKING_TEXT_MESSAGE_START", {}, extra),
  thinkingTextMessageContent: (delta: string, extra?: Extra) => e("THINKING_TEXT_MESSAGE_CONTENT", { delta }, extra),
  thinkingTextMessageEnd: (extra?: Extra) => e("THINKING_TEXT_MESSAGE_END", {}, extra),
};

/** A deterministic `idFactory` for D-THINK-IDS: `think-1`, `think-2`, … */
export function sequentialIds(prefix = "think-"): () => string {
  stringArgument(prefix, "sequentialIds", "prefix");
  let n = 0;
  return () => `${prefix}${++n}`;
}

/**
 * Message builders for expected histories and `initialMessages`: AG-UI 1.0 `Message` objects with
 * only the fields given (optional fields appear only when set, as the history derives them).
 */
export const msg = {
  reasoning: (id: string, content = "", extra?: Extra) =>
    ({ id, role: "reasoning", content, ...more(extra, "msg.reasoning") }) as Message,
  assistant: (id: string, content?: string, extra?: Extra) =>
    ({ id, role: "assistant", ...opt("content", content), ...more(extra, "msg.assistant") }) as Message,
  user: (id: string, content: string, extra?: Extra) =>
    ({ id, role: "user", content, ...more(extra, "msg.user") }) as Message,
  system: (id: string, content: string, extra?: Extra) =>
    ({ id, role: "system", content, ...more(extra, "msg.system") }) as Message,
  tool: (id: string, toolCallId: string, content: string, extra?: Extra) =>
    ({ id, role: "tool", toolCallId, content, ...more(extra, "msg.tool") }) as Message,
  activity: (id: string, activityType = "progress", content: Record<string, unknown> = {}, extra?: Extra) =>
    ({ id, role: "activity", activityType, content, ...more(extra, "msg.activity") }) as Message,
  /** A `ToolCall` for `msg.assistant(id, content, { toolCalls: [msg.toolCall(…)] })`. */
  toolCall: (id: string, name = "search", args = "", extra?: Extra) => ({
    id,
    type: "function" as const,
    function: { name, arguments: args },
    ...more(extra, "msg.toolCall"),
  }),
};

/**
 * An expected `ReasoningHistory`: `messages`, plus `incomplete`, `issuers` and `durations` (all default to `[]`).
 * `historyOf([msg.reasoning("m1", "Let me")], { incomplete: [{ kind: "message", id: "m1", reason: "open" }] })`.
 */
export function historyOf(
  messages: readonly Message[] = [],
  extra: {
    incomplete?: readonly IncompleteItem[];
    issuers?: readonly ValueIssuer[];
    durations?: readonly ReasoningDuration[];
  } = {},
): ReasoningHistory {
  const { incomplete = [], issuers = [], durations = [] } = objectArgument(extra, "historyOf", "second argument");
  // Entries are not checked: an expected history may hold asymmetric matchers (`expect.any(String)`).
  const list = <T>(entries: readonly T[], name: string) => listArgument(entries, "historyOf", name, "any");
  return {
    messages: list(messages, "messages"),
    incomplete: list(incomplete, "incomplete"),
    issuers: list(issuers, "issuers"),
    durations: list(durations, "durations"),
  };
}
