import type { Message } from "@ag-ui/core";
import { toolCallsOf } from "./conversation";
import { heldDurations } from "./durations";
import { entityKey, messageValueKey, recordKey } from "./message-key";
import type { ReasoningHistory, ValueIssuer } from "./types";

/**
 * The entity keys of the messages and tool calls in `messages`, and the value keys of their tool
 * messages (message-key.ts).
 */
export function entityKeys(messages: readonly Message[]): Set<string> {
  const present = new Set<string>();
  for (const message of messages) {
    present.add(entityKey("message", message.id));
    if (message.role === "tool") present.add(messageValueKey(message));
    for (const call of toolCallsOf(message) ?? []) present.add(entityKey("tool-call", call.id));
  }
  return present;
}

/**
 * `issuers` with each record of a message that names only a tool message marked as that tool
 * message's (`toolMessage`). Such a record was written before tool messages had records of their
 * own (or by hand): its id named the tool message then, as routing by id still does when no message
 * of another role has it (D-TOOL-RESULT-ID). `issuers` itself when there is none. O(messages + records).
 */
export function ownIssuers(messages: readonly Message[], issuers: readonly ValueIssuer[]): readonly ValueIssuer[] {
  if (!issuers.some((r) => r.subtype === "message" && r.toolMessage !== true)) return issuers;
  const tool = new Set<string>();
  const other = new Set<string>();
  for (const message of messages) (message.role === "tool" ? tool : other).add(message.id);
  return issuers.map((r) =>
    r.subtype === "message" && r.toolMessage !== true && !other.has(r.entityId) && tool.has(r.entityId)
      ? { ...r, toolMessage: true }
      : r,
  );
}

type Records = Omit<ReasoningHistory, "messages">;

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
  present: ReadonlySet<string> = entityKeys(messages),
): Records {
  return {
    incomplete: records.incomplete.filter((item) => present.has(entityKey(item.kind, item.id))),
    issuers: ownIssuers(messages, records.issuers).filter((record) => present.has(recordKey(record))),
    durations: heldDurations(records.durations, { has: (id) => present.has(entityKey("message", id)) }),
  };
}
