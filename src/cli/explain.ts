import type { ReasoningErrorCode } from "../core/errors";

/** One line per error code, for the human report: what the producer did wrong, in words. */
export const EXPLANATIONS: Readonly<Record<ReasoningErrorCode, string>> = {
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
  ID_ROLE_CONFLICT: "a reasoning start names an existing non-reasoning message (or a text start a reasoning message)",
  ATTRIBUTION_MISMATCH: "a continuation's subagentRunId disagrees with the owner its item was opened under",
  EVENT_OUTSIDE_RUN: "an event arrived outside an open run: before RUN_STARTED, or after the run closed",
  NESTED_RUN: "RUN_STARTED arrived while a run was still open",
  LIMIT_EXCEEDED: "a bound was passed: more items open at once than maxOpenItems, or a content or arguments longer than maxContentLength",
};
