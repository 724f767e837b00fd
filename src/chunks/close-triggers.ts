import { EventType } from "@ag-ui/core";
import type { ChunkFamily } from "./chunk-families";

/**
 * What a non-chunk event does to open chunk streams (R-STREAM-15, R-STREAM-17). Event types missing
 * from `CLOSE_TRIGGERS` stand aside and close nothing: `RAW`, `ACTIVITY_SNAPSHOT`, `ACTIVITY_DELTA`,
 * `REASONING_ENCRYPTED_VALUE`, `SUBAGENT_STARTED` (R-STREAM-15b, R-PASS-1, R-ACT-4, R-REASON-21), and
 * any type this table does not know (enforcement drops those before expansion, #58).
 */
export type CloseTrigger =
  /**
   * (b) A message, tool-call, step, state, custom or reasoning event closes the stream of its own
   * lane (its `subagentRunId`; absent = the parent). When it `names` an item a chunk
   * stream is assembling in another lane, that stream ends too: an explicit event is never a
   * continuation of a chunk-opened item (R-STREAM-9). `names`: the field naming it, and its id namespace.
   */
  | { readonly scope: "lane"; readonly names?: Pick<ChunkFamily, "idField" | "namespace"> }
  /** (c) A run-level event closes every lane. */
  | { readonly scope: "all" }
  /** A subagent's terminal closes that subagent's lane (R-STREAM-17). */
  | { readonly scope: "owner" };

const lane: CloseTrigger = { scope: "lane" };
const namingMessage: CloseTrigger = { scope: "lane", names: { idField: "messageId", namespace: "message" } };
const namingToolCall: CloseTrigger = { scope: "lane", names: { idField: "toolCallId", namespace: "tool-call" } };
const all: CloseTrigger = { scope: "all" };
const owner: CloseTrigger = { scope: "owner" };

export const CLOSE_TRIGGERS: ReadonlyMap<string, CloseTrigger> = new Map<string, CloseTrigger>([
  [EventType.TEXT_MESSAGE_START, namingMessage],
  [EventType.TEXT_MESSAGE_CONTENT, namingMessage],
  [EventType.TEXT_MESSAGE_END, namingMessage],
  [EventType.REASONING_MESSAGE_START, namingMessage],
  [EventType.REASONING_MESSAGE_CONTENT, namingMessage],
  [EventType.REASONING_MESSAGE_END, namingMessage],
  [EventType.TOOL_CALL_START, namingToolCall],
  [EventType.TOOL_CALL_ARGS, namingToolCall],
  [EventType.TOOL_CALL_END, namingToolCall],
  [EventType.TOOL_CALL_RESULT, namingToolCall],
  // A span id is not a message id (R-REASON-12): span events close their lane only.
  [EventType.REASONING_START, lane],
  [EventType.REASONING_END, lane],
  [EventType.STEP_STARTED, lane],
  [EventType.STEP_FINISHED, lane],
  [EventType.STATE_SNAPSHOT, lane],
  [EventType.STATE_DELTA, lane],
  [EventType.CUSTOM, lane],
  [EventType.RUN_STARTED, all],
  [EventType.RUN_FINISHED, all],
  [EventType.RUN_ERROR, all],
  [EventType.MESSAGES_SNAPSHOT, all],
  [EventType.SUBAGENT_FINISHED, owner],
  [EventType.SUBAGENT_ERROR, owner],
]);
