import type { ReasoningErrorCode } from "../core/errors";

/** Codes of the check itself, beyond the pipeline's (docs/cli.md). */
export type CheckOnlyCode = "NO_RUN" | "MAX_WARNINGS" | "LOSSY_WARNINGS";

/** One line per error code, for the reports: what the producer did wrong, in words. */
export const EXPLANATIONS: Readonly<Record<ReasoningErrorCode | CheckOnlyCode, string>> = {
  MALFORMED_EVENT:
    "a field the schema describes carries a value it rejects (or the event is not an object); malformed input is fatal, never repaired",
  ORPHAN_CONTENT: "content names an item nothing opened; a consumer must not invent the item",
  ORPHAN_END: "an end names an item (span, message, tool call, step, subagent) that is not open",
  DUPLICATE_OPEN: "a start names an item that is already open; it must be closed before its id is used again",
  OPEN_AT_RUN_FINISHED: "RUN_FINISHED arrived while something the run opened was still open",
  RUN_TRUNCATED:
    "the stream ended without RUN_FINISHED or RUN_ERROR: the run is truncated, not finished, and is never reported as a success",
  FIRST_CHUNK_WITHOUT_ID: "the first chunk of an item lacks its id (or tool name); a consumer must not mint one",
  AMBIGUOUS_CONTINUATION: "an id-less chunk could continue more than one open stream; it has no unique referent",
  CONFLICTING_CHUNK_FIELD: "a continuation chunk repeats an opener field with a different value",
  LEGACY_ORPHAN: "a retired THINKING_* content or end event arrived without its start",
  ID_ROLE_CONFLICT: "one message id names both a reasoning message and a non-reasoning one",
  ATTRIBUTION_MISMATCH: "a continuation's subagentRunId disagrees with the owner its item was opened under",
  EVENT_OUTSIDE_RUN: "an event arrived outside an open run: before RUN_STARTED, or after the run closed",
  NESTED_RUN: "RUN_STARTED arrived while a run was still open",
  LIMIT_EXCEEDED:
    "a bound was passed: more items open at once than maxOpenItems, or a content or arguments longer than maxContentLength",
  MAX_WARNINGS:
    "the stream is valid, but it raised more warnings than --max-warnings allows (ESLint's convention: 0 fails on any warning)",
  LOSSY_WARNINGS:
    "the stream is valid, but a lossy warning reports content that was lost on the way (a value or content dropped, R-VER-7); --fail-on-lossy fails on it",
  NO_RUN:
    "the stream holds no run (no RUN_STARTED or RUN_ERROR): nothing was checked, which in CI usually means a wrong file or endpoint; --allow-empty accepts it",
};

/** What happened, as far as choosing the explanation needs it. */
export interface Situation {
  readonly code: string;
  /** The rule the pipeline named. */
  readonly rule: string;
  /** The type of the event the pipeline judged (a synthesized one for chunks). */
  readonly eventType: string | undefined;
  /** The type of the source event at that index, when known. */
  readonly sourceType: string | undefined;
  readonly ids: readonly string[];
  /** Whether a chunk of the current run named `id`. */
  readonly chunked: (id: string) => boolean;
}

/** The explanation chosen, and the rule it names. */
export interface Explanation {
  readonly rule: string;
  readonly text: string;
  /** It describes the situation better than the pipeline's own message, whose advice would mislead. */
  readonly replacesMessage: boolean;
}

const isChunk = (type: string | undefined): boolean => type !== undefined && type.endsWith("_CHUNK");

/** Situations whose explanation is not the code's own, first match wins. */
const SITUATIONS: readonly {
  readonly when: (s: Situation) => boolean;
  /** The rule it names (default: the pipeline's). */
  readonly rule?: string;
  readonly text: string;
  readonly replacesMessage?: true;
}[] = [
  {
    // Edge case #49: explicit START open, then a chunk for the same id (the chunk's synthesized START is the duplicate).
    when: (s) => s.code === "DUPLICATE_OPEN" && isChunk(s.sourceType) && s.eventType !== s.sourceType,
    rule: "R-STREAM-9",
    text:
      "a chunk names an item an explicit START opened: the chunk and explicit forms do not mix within one item (edge case #49). " +
      "Continue a START-opened item with explicit CONTENT/ARGS and END events, or open it with a chunk",
    replacesMessage: true,
  },
  {
    // Edge cases #46/#47: a chunk opened the item; an explicit CONTENT/END finds it closed by its synthesized END.
    when: (s) =>
      (s.code === "ORPHAN_CONTENT" || s.code === "ORPHAN_END") &&
      !isChunk(s.sourceType) &&
      s.ids.some((id) => s.chunked(id)),
    rule: "R-STREAM-9",
    text:
      "an explicit event continues an item a chunk opened: the chunk and explicit forms do not mix within one item (edge cases #46, #47). " +
      "A chunk-opened item is continued in chunk form and its END is synthesized, so the explicit event finds it already closed",
    replacesMessage: true,
  },
  {
    when: (s) => s.code === "ID_ROLE_CONFLICT" && s.eventType === "TOOL_CALL_START",
    text:
      "a TOOL_CALL_START without parentMessageId is held on an assistant message whose id is its toolCallId, " +
      "but that id already names a message of another role",
  },
  {
    when: (s) => s.code === "ID_ROLE_CONFLICT" && (s.eventType?.startsWith("REASONING_") ?? false),
    text: "a reasoning message start names an existing non-reasoning message; a message id has one role",
  },
  {
    when: (s) => s.code === "ID_ROLE_CONFLICT" && (s.eventType?.startsWith("TEXT_MESSAGE_") ?? false),
    text: "a text message start names an existing reasoning message; a message id has one role",
  },
];

/** The explanation of a failure, chosen by what happened (the event type, the families involved). */
export function explain(s: Situation): Explanation {
  const match = SITUATIONS.find((entry) => entry.when(s));
  if (match) {
    return { rule: match.rule ?? s.rule, text: match.text, replacesMessage: match.replacesMessage ?? false };
  }
  const text = (EXPLANATIONS as Record<string, string | undefined>)[s.code] ?? s.code;
  return { rule: s.rule, text, replacesMessage: false };
}
