import type { Message } from "@ag-ui/core";
import { toolCallsOf } from "./conversation";
import { heldDurations } from "./durations";
import { KindMap, messageKind, ownIssuers, recordKind } from "./message-key";
import type { ReasoningHistory } from "./types";

/**
 * The messages and tool calls in `messages` as kind and id ("message", "tool-call"), and their tool messages
 * as the kind of their values (`messageKind`).
 */
export function entityKeys(messages: readonly Message[]): KindMap<true> {
  const present = new KindMap<true>();
  for (const message of messages) {
    present.set("message", message.id, true);
    if (message.role === "tool") present.set(messageKind(message), message.id, true);
    for (const call of toolCallsOf(message) ?? []) present.set("tool-call", call.id, true);
  }
  return present;
}

/** A history's lists other than its messages: the records naming what the messages hold. */
export type Records = Omit<ReasoningHistory, "messages">;

/**
 * The records of `records` that name what `messages` hold: `incomplete` items and issuer records of a
 * message or tool call there, durations of a message there (and of the spans those started in).
 * Why: the pipeline never derives a record naming nothing (a snapshot drops them, apply-snapshot.ts;
 * the middleware drops those of a message the application no longer sends, D-KEEPER), and one left
 * in a seed attaches to a later message reusing the id (its first start taken for the new one's).
 * Every way in keeps the same records (D-PATHS). `present`: `entityKeys(messages)`, if the caller
 * has it. O(messages + records).
 */
export function heldRecords(
  messages: readonly Message[],
  records: Records,
  present: KindMap<true> = entityKeys(messages),
): Records {
  return {
    incomplete: records.incomplete.filter((item) => present.has(item.kind, item.id)),
    issuers: ownIssuers(messages, records.issuers).filter((record) => present.has(recordKind(record), record.entityId)),
    durations: heldDurations(records.durations, { has: (id) => present.has("message", id) }),
  };
}
