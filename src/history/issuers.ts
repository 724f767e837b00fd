import type { Message } from "@ag-ui/core";
import { issuerTable, toolCallsOf, type Conversation } from "./conversation";
import { spaceOf } from "./table";
import type { ValueIssuer } from "./types";

/**
 * Issuer records (D-ISSUER): who issued each stored `encryptedValue`, kept beside the messages
 * (never inside them). One record per entity; a new value replaces the record (D-REPEAT).
 * Recording one is O(log32 n) in the number of stored values (a `Table` keyed by entity id in its
 * subtype's space); only a snapshot, which restates the conversation anyway, rebuilds them.
 */

type Subtype = ValueIssuer["subtype"];

/** Records that this conversation's producer issued the value now stored on `subtype` `entityId`. */
export function recordIssuer(conversation: Conversation, subtype: Subtype, entityId: string): Conversation {
  const { issuers } = conversation.parts;
  const issuer = conversation.producer;
  const space = spaceOf(subtype);
  const slot = issuers.slotOf(entityId, space);
  if (slot !== undefined && issuers.at(slot)!.issuer === issuer) return conversation;
  const record: ValueIssuer = { subtype, entityId, issuer };
  return conversation.with({
    issuers: slot === undefined ? issuers.pushNew(record, entityId, space) : issuers.setAt(slot, record),
  });
}

/** Records that this conversation's producer issued every value `message` and its tool calls carry. */
export function recordValuesOf(conversation: Conversation, message: Message): Conversation {
  let next = conversation;
  for (const record of issuersOf(message, conversation.producer))
    next = recordIssuer(next, record.subtype, record.entityId);
  return next;
}

/** The records for the values a message and its tool calls carry, all issued by `issuer`. */
export function issuersOf(message: Message, issuer: string | undefined, into: ValueIssuer[] = []): ValueIssuer[] {
  // An activity message holds no value by schema (R-REASON-18, #96): nothing to attribute.
  if (message.role === "activity") return into;
  if (hasValue(message)) into.push({ subtype: "message", entityId: message.id, issuer });
  const calls = toolCallsOf(message);
  if (calls !== undefined) {
    for (const call of calls) if (hasValue(call)) into.push({ subtype: "tool-call", entityId: call.id, issuer });
  }
  return into;
}

/**
 * Drops the records of the given messages and tool calls (their values went with them: a snapshot
 * replaced or removed them, R-REASON-20) and appends `added`. Rebuilds the table (O(values)).
 */
export function replaceIssuers(
  conversation: Conversation,
  goneMessages: ReadonlySet<string>,
  goneToolCalls: ReadonlySet<string>,
  added: readonly ValueIssuer[],
): Conversation {
  const before = conversation.parts.issuers.toArray();
  const gone = (r: ValueIssuer): boolean =>
    r.subtype === "message" ? goneMessages.has(r.entityId) : goneToolCalls.has(r.entityId);
  if (added.length === 0 && !before.some(gone)) return conversation;
  const next = before.filter((r) => !gone(r));
  next.push(...added);
  return conversation.with({ issuers: issuerTable(next) });
}

/** Whether a message or tool call carries a stored value (an own string `encryptedValue`, "" included). */
export function hasValue(target: object): target is { readonly encryptedValue: string } {
  return (
    Object.hasOwn(target, "encryptedValue") &&
    typeof (target as { encryptedValue?: unknown }).encryptedValue === "string"
  );
}
