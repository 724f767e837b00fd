import type { ReasoningPipelineOptions } from "../../src/pipeline/reasoning-pipeline";
import { ev, msg } from "../../src/testing/builders";
import { MARK } from "./scan";

/**
 * One stream per error code and per warning code the pipeline stages emit, each carrying content
 * (deltas, values, titles, arguments, results, metadata) on the very events the error or warning is
 * about, so that a message built from the event would show it.
 */

let next = 0;
/** A fresh marker: `§` and a distinctive tail, longer than any word of a sentence. */
export const secret = (label: string): string => `${MARK}${label}-${(next++).toString(36)}-Jq4Vx9Rm`;

export interface CodeStream {
  /** The code the stream must produce (an error code, or a warning code among its warnings). */
  readonly code: string;
  readonly kind: "error" | "warning";
  readonly events: readonly unknown[];
  readonly options?: ReasoningPipelineOptions;
}

const meta = (): Record<string, unknown> => ({ note: secret("meta") });

export function errorStreams(): CodeStream[] {
  const e = (code: string, events: unknown[], options?: ReasoningPipelineOptions): CodeStream => ({
    code,
    kind: "error",
    events,
    ...(options && { options }),
  });
  return [
    e("MALFORMED_EVENT", [
      ev.runStarted(),
      ev.reasoningMessageStart("m1"),
      ev.reasoningMessageContent("m1", { text: secret("delta") } as never, { metadata: meta() }),
    ]),
    e("MALFORMED_EVENT", [ev.runStarted(), ev.encryptedValue("message", "m1", [secret("value")] as never)]),
    e("MALFORMED_EVENT", [ev.runStarted(), ev.reasoningChunk("m1", secret("delta"), { metadata: secret("meta") })]),
    e("MALFORMED_EVENT", [ev.runStarted(), secret("not-an-event")]),
    e("MALFORMED_EVENT", [ev.runStarted(), ev.thinkingStart({ title: 5 as never, note: secret("title") })]),
    e("MALFORMED_EVENT", [ev.runStarted(), ev.reasoningMessageStart("m1", { role: secret("role") })]),
    e("ORPHAN_CONTENT", [ev.runStarted(), ev.reasoningMessageContent("ghost", secret("delta"), { metadata: meta() })]),
    e("ORPHAN_CONTENT", [ev.runStarted(), ev.toolCallArgs("ghost", secret("args"))]),
    e("ORPHAN_END", [ev.runStarted(), ev.reasoningMessageEnd("ghost", { metadata: meta() })]),
    e("DUPLICATE_OPEN", [
      ev.runStarted(),
      ev.reasoningMessageStart("m1"),
      ev.reasoningMessageContent("m1", secret("delta")),
      ev.reasoningMessageStart("m1", { metadata: meta() }),
    ]),
    e("OPEN_AT_RUN_FINISHED", [
      ev.runStarted(),
      ev.reasoningStart("s1"),
      ev.reasoningMessageStart("m1"),
      ev.reasoningMessageContent("m1", secret("delta")),
      ev.runFinished("r1", { result: secret("result") }),
    ]),
    e("RUN_TRUNCATED", [
      ev.runStarted(),
      ev.reasoningMessageStart("m1"),
      ev.reasoningMessageContent("m1", secret("delta")),
      ev.encryptedValue("message", "m1", secret("value")),
    ]),
    e("FIRST_CHUNK_WITHOUT_ID", [ev.runStarted(), ev.reasoningChunk(undefined, secret("delta"), { metadata: meta() })]),
    e("FIRST_CHUNK_WITHOUT_ID", [ev.runStarted(), ev.toolCallChunk("tc1", undefined, secret("args"))]),
    e("AMBIGUOUS_CONTINUATION", [
      ev.runStarted(),
      ev.subagentStarted("a"),
      ev.subagentStarted("b"),
      ev.reasoningChunk("m1", secret("delta"), { subagentRunId: "a" }),
      ev.reasoningChunk("m2", secret("delta"), { subagentRunId: "b" }),
      ev.reasoningChunk(undefined, secret("delta")),
    ]),
    e("CONFLICTING_CHUNK_FIELD", [
      ev.runStarted(),
      ev.toolCallChunk("tc1", "search", secret("args")),
      ev.toolCallChunk("tc1", "fetch", secret("args")),
    ]),
    e("LEGACY_ORPHAN", [ev.runStarted(), ev.thinkingTextMessageContent(secret("delta"))]),
    e("LEGACY_ORPHAN", [ev.runStarted(), ev.thinkingEnd({ title: secret("title") })]),
    e("DUPLICATE_OPEN", [
      ev.runStarted(),
      ev.thinkingStart({ title: secret("title") }),
      ev.thinkingStart({ title: secret("title") }),
    ]),
    e("ID_ROLE_CONFLICT", [
      ev.runStarted(),
      ev.textStart("a1"),
      ev.textContent("a1", secret("answer")),
      ev.textEnd("a1"),
      ev.reasoningMessageStart("a1"),
    ]),
    e("ID_ROLE_CONFLICT", [
      ev.runStarted(),
      ev.reasoningChunk("m1", secret("delta")),
      ev.textChunk("m1", secret("answer")),
    ]),
    e("ATTRIBUTION_MISMATCH", [
      ev.runStarted(),
      ev.subagentStarted("a"),
      ev.subagentStarted("b"),
      ev.reasoningChunk("m1", secret("delta"), { subagentRunId: "a" }),
      ev.reasoningChunk("m1", secret("delta"), { subagentRunId: "b" }),
    ]),
    e("ATTRIBUTION_MISMATCH", [
      ev.runStarted(),
      ev.reasoningStart("s1", { subagentRunId: "a" }),
      ev.reasoningEnd("s1", { subagentRunId: "b", metadata: meta() }),
    ]),
    e("EVENT_OUTSIDE_RUN", [ev.reasoningMessageContent("m1", secret("delta"))]),
    e("EVENT_OUTSIDE_RUN", [ev.runStarted(), ev.runFinished(), ev.encryptedValue("message", "m1", secret("value"))]),
    e("NESTED_RUN", [
      ev.runStarted(),
      ev.reasoningMessageStart("m1"),
      ev.reasoningMessageContent("m1", secret("delta")),
      ev.runStarted("r2"),
    ]),
    e(
      "LIMIT_EXCEEDED",
      [
        ev.runStarted(),
        ev.reasoningMessageStart("m1"),
        ev.reasoningMessageContent("m1", secret("delta")),
        ev.reasoningMessageStart("m2", { metadata: meta() }),
      ],
      {
        maxOpenItems: 1,
      },
    ),
  ];
}

export function warningStreams(): CodeStream[] {
  const w = (code: string, events: unknown[], options?: ReasoningPipelineOptions): CodeStream => ({
    code,
    kind: "warning",
    events: [ev.runStarted(), ...events, ev.runFinished()],
    ...(options && { options }),
  });
  return [
    w("UNKNOWN_EVENT_TYPE", [
      { type: "REASONING_SUMMARY", messageId: "m1", summary: secret("summary"), delta: secret("delta") },
    ]),
    w("STRIPPED_PROPERTY", [
      ev.reasoningStart("s1", { summaryText: secret("extra"), title: secret("title") }),
      ev.reasoningEnd("s1"),
    ]),
    w("UNKNOWN_UNION_MEMBER", [
      ev.messagesSnapshot([
        msg.user("u1", secret("user")),
        { id: "c1", role: "critic", content: secret("critic") } as never,
      ]),
    ]),
    w("UNKNOWN_UNION_MEMBER", [
      ev.textStart("a1", secret("role")),
      ev.textContent("a1", secret("answer")),
      ev.textEnd("a1"),
    ]),
    w("UNKNOWN_SUBTYPE", [
      ev.reasoningMessageStart("m1"),
      ev.reasoningMessageEnd("m1"),
      ev.encryptedValue("future", "m1", secret("value")),
    ]),
    w("NULL_TOLERATED", [
      ev.toolCallStart("tc1", "search", { parentMessageId: null }),
      ev.toolCallArgs("tc1", secret("args")),
      ev.toolCallEnd("tc1"),
    ]),
    w("PROTOCOL_VERSION", [
      ev.reasoningMessageStart("m1"),
      ev.reasoningMessageContent("m1", secret("delta")),
      ev.reasoningMessageEnd("m1"),
    ]),
    w("THINKING_UPCAST", [
      ev.thinkingTextMessageStart(),
      ev.thinkingTextMessageContent(secret("delta")),
      ev.thinkingTextMessageEnd(),
    ]),
    w("THINKING_TITLE_MOVED", [ev.thinkingStart({ title: secret("title") }), ev.thinkingEnd()]),
    w("THINKING_TITLE_DROPPED", [
      ev.thinkingStart({ title: secret("title"), metadata: { "agui-reasoning": secret("meta") } }),
      ev.thinkingEnd(),
    ]),
    w("UNKNOWN_ENTITY", [ev.encryptedValue("message", "nobody", secret("value"), { metadata: meta() })]),
    w("UNKNOWN_ENTITY", [
      ev.reasoningStart("s1"),
      ev.encryptedValue("message", "s1", secret("value")),
      ev.reasoningEnd("s1"),
    ]),
    w("UNKNOWN_ENTITY", [
      ev.activitySnapshot("act", "plan", { text: secret("activity") }),
      ev.encryptedValue("message", "act", secret("value")),
    ]),
    w("TARGET_REMOVED", [
      ev.reasoningMessageStart("m1"),
      ev.reasoningMessageContent("m1", secret("delta")),
      ev.messagesSnapshot([msg.reasoning("m2", secret("reasoning"))]),
      ev.reasoningMessageContent("m1", secret("delta"), { metadata: meta() }),
      ev.reasoningMessageEnd("m1"),
    ]),
    w("TARGET_REPLACED", [
      ev.textStart("t1"),
      ev.textContent("t1", secret("answer")),
      ev.messagesSnapshot([msg.reasoning("t1", secret("reasoning"))]),
      ev.textContent("t1", secret("answer"), { metadata: meta() }),
      ev.textEnd("t1", { metadata: meta() }),
    ]),
    // The run ends naming a run id of the server's own, then another run starts and ends as usual.
    w("RUN_ID_MISMATCH", [
      ev.textChunk("a1", secret("answer")),
      ev.runFinished("server-run", { result: secret("result") }),
      ev.runStarted("r1"),
    ]),
    w("DUPLICATE_MESSAGE_ID", [
      ev.textStart("shared"),
      ev.textContent("shared", secret("answer")),
      ev.textEnd("shared"),
      ev.toolCallStart("tc1", "search", { parentMessageId: "h1" }),
      ev.toolCallEnd("tc1"),
      ev.toolCallResult("shared", "tc1", secret("result"), { metadata: meta() }),
    ]),
    w("ACTIVITY_SKIPPED", [
      ev.activitySnapshot("act", "plan", { text: secret("activity") }),
      {
        type: "ACTIVITY_DELTA",
        messageId: "act",
        activityType: "plan",
        patch: [{ op: "test", path: "/text", value: secret("activity") }],
      },
      {
        type: "ACTIVITY_DELTA",
        messageId: "nobody",
        activityType: "plan",
        patch: [{ op: "add", path: "/x", value: secret("activity") }],
      },
    ]),
    w("TOOL_CALL_PARENT_CONFLICT", [
      ev.reasoningMessageStart("m1"),
      ev.reasoningMessageContent("m1", secret("delta")),
      ev.reasoningMessageEnd("m1"),
      ev.toolCallStart("tc1", "search", { parentMessageId: "m1" }),
      ev.toolCallArgs("tc1", secret("args")),
      ev.toolCallEnd("tc1"),
    ]),
    w("DUPLICATE_MESSAGE_ID", [
      ev.toolCallStart("tc1"),
      ev.toolCallEnd("tc1"),
      ev.toolCallResult("res1", "tc1", secret("result")),
      ev.encryptedValue("message", "res1", secret("value")),
      ev.toolCallResult("res1", "tc1", secret("result")),
    ]),
    // toRunInputMessages for another producer withholds every value the history holds (D-ISSUER).
    w("VALUE_WITHHELD", [
      ev.reasoningMessageStart("m1"),
      ev.reasoningMessageEnd("m1"),
      ev.encryptedValue("message", "m1", secret("value")),
      ev.toolCallStart("tc1"),
      ev.toolCallEnd("tc1"),
      ev.encryptedValue("tool-call", "tc1", secret("value")),
    ]),
  ].map((s) =>
    s.code === "PROTOCOL_VERSION"
      ? { ...s, events: [ev.runStarted("r1", { protocolVersion: "2.0" }), ...s.events.slice(1)] }
      : s,
  );
}

/** The opt-in stages, run where users place them (docs/resilience.md). */
export type OptInStage = "repairStream" | "downcastToThinking" | "saveHistory";

/** A stream for an opt-in stage: its events are whole (the run lifecycle included, or broken on purpose). */
export interface OptInStream extends Omit<CodeStream, "options"> {
  readonly stage: OptInStage;
}

/**
 * One stream per warning and error code of the opt-in stages — `repairStream` in front of the
 * pipeline, `downcastToThinking` after it, `saveHistory` into a store that cannot keep values —
 * each carrying content on the events the warning is about.
 */
export function optInStreams(): OptInStream[] {
  const s = (stage: OptInStage, kind: "error" | "warning", code: string, events: unknown[]): OptInStream => ({
    stage,
    kind,
    code,
    events,
  });
  const repair = (code: string, events: unknown[]) => s("repairStream", "warning", code, events);
  const downcast = (code: string, events: unknown[]) => s("downcastToThinking", "warning", code, events);
  const message = (id: string): unknown[] => [
    ev.reasoningMessageStart(id),
    ev.reasoningMessageContent(id, secret("delta")),
    ev.reasoningMessageEnd(id),
  ];
  return [
    repair("REPAIRED_ORPHAN_DROPPED", [
      ev.runStarted(),
      ev.reasoningMessageContent("ghost", secret("delta"), { metadata: meta() }),
      ev.runFinished(),
    ]),
    repair("REPAIRED_ORPHAN_DROPPED", [
      ev.runStarted(),
      ev.toolCallArgs("ghost", secret("args")),
      ev.reasoningEnd("ghost", { metadata: meta() }),
      ev.runFinished(),
    ]),
    repair("REPAIRED_ORPHAN_DROPPED", [
      ev.runStarted(),
      ev.thinkingTextMessageContent(secret("delta")),
      ev.thinkingEnd({ title: secret("title") }),
      ev.runFinished(),
    ]),
    repair("REPAIRED_DUPLICATE_OPEN_DROPPED", [
      ev.runStarted(),
      ev.reasoningMessageStart("m1"),
      ev.reasoningMessageContent("m1", secret("delta")),
      ev.reasoningMessageStart("m1", { metadata: meta() }),
      ev.reasoningChunk("m1", secret("delta"), { metadata: meta() }),
      ev.reasoningMessageEnd("m1"),
      ev.runFinished(),
    ]),
    repair("REPAIRED_DUPLICATE_OPEN_DROPPED", [
      ev.runStarted(),
      ev.thinkingStart({ title: secret("title") }),
      ev.thinkingStart({ title: secret("title") }),
      ev.thinkingEnd(),
      ev.runFinished(),
    ]),
    repair("REPAIRED_CLOSED_AT_FINISH", [
      ev.runStarted(),
      ev.reasoningStart("s1", { metadata: meta() }),
      ev.reasoningMessageStart("m1"),
      ev.reasoningMessageContent("m1", secret("delta")),
      ev.toolCallStart("tc1"),
      ev.toolCallArgs("tc1", secret("args")),
      ev.runFinished("r1", { result: secret("result") }),
    ]),
    repair("REPAIRED_TRUNCATED_RUN", [
      ev.runStarted(),
      ev.reasoningMessageStart("m1"),
      ev.reasoningMessageContent("m1", secret("delta")),
      ev.encryptedValue("message", "m1", secret("value")),
    ]),
    repair("REPAIRED_NESTED_RUN", [
      ev.runStarted(),
      ev.thinkingStart({ title: secret("title") }),
      ev.thinkingTextMessageStart(),
      ev.thinkingTextMessageContent(secret("delta")),
      ev.runStarted("r2"),
      ev.runFinished("r2"),
    ]),
    repair("REPAIRED_OUTSIDE_RUN_DROPPED", [
      ev.reasoningMessageContent("m1", secret("delta"), { metadata: meta() }),
      ev.runStarted(),
      ev.runFinished(),
      ev.encryptedValue("message", "m1", secret("value")),
      ev.textChunk("a1", secret("answer")),
    ]),
    downcast("DOWNCAST_ID_DROPPED", [
      ev.runStarted(),
      ev.reasoningStart("s1"),
      ...message("m1"),
      ev.reasoningEnd("s1"),
      ev.runFinished(),
    ]),
    downcast("DOWNCAST_METADATA_DROPPED", [
      ev.runStarted(),
      ev.thinkingStart({ title: secret("title"), metadata: { note: secret("meta") } }),
      ev.thinkingTextMessageStart(),
      ev.thinkingTextMessageContent(secret("delta")),
      ev.thinkingTextMessageEnd(),
      ev.thinkingEnd(),
      ev.reasoningMessageStart("m2", { metadata: meta() }),
      ev.reasoningMessageContent("m2", secret("delta"), { metadata: meta() }),
      // Keys are named: D-REDACT allows JSON paths. Their values are not.
      ev.reasoningMessageEnd("m2", { metadata: { vendorNote: secret("meta"), nested: { deeper: [secret("meta")] } } }),
      ev.runFinished(),
    ]),
    downcast("DOWNCAST_VALUE_DROPPED", [
      ev.runStarted(),
      ...message("m1"),
      ev.encryptedValue("message", "m1", secret("value"), { metadata: meta() }),
      ev.runFinished(),
    ]),
    s("downcastToThinking", "error", "NOT_REPRESENTABLE", [
      ev.runStarted(),
      ev.reasoningMessageStart("m1"),
      ev.reasoningMessageContent("m1", secret("delta")),
      ev.reasoningMessageStart("m2", { metadata: meta() }),
      ev.reasoningMessageContent("m2", secret("delta")),
    ]),
    s("downcastToThinking", "error", "NOT_REPRESENTABLE", [
      ev.runStarted(),
      ev.reasoningStart("s1"),
      ev.reasoningStart("s2", { metadata: meta() }),
      ev.runFinished(),
    ]),
    s("saveHistory", "warning", "VALUE_NOT_STORED", [
      ev.runStarted(),
      ...message("m1"),
      ev.encryptedValue("message", "m1", secret("value")),
      ev.toolCallStart("tc1"),
      ev.toolCallArgs("tc1", secret("args")),
      ev.toolCallEnd("tc1"),
      ev.encryptedValue("tool-call", "tc1", secret("value")),
      ev.runFinished("r1", { result: secret("result") }),
    ]),
  ];
}
