import type { Message } from "@ag-ui/core";
import { issuerTable, recordSpace, toolCallsOf, type Conversation } from "./conversation";
import { recordKind, type KindMap } from "./message-key";
import type { ValueIssuer } from "./types";

/**
 * Issuer records (D-ISSUER): who issued each stored `encryptedValue`, kept beside the messages
 * (never inside them). One record per entity; a new value replaces the record (D-REPEAT).
 * Recording one is O(log32 n) in the number of stored values (a `Table` keyed by entity id in its
 * space, `recordSpace`: a tool message's value has a record of its own, D-HISTORY-IDS); only a
 * snapshot, which restates the conversation anyway, rebuilds them.
 */

type Subtype = ValueIssuer["subtype"];

/**
 * Records that this conversation's producer issued the value now stored on `subtype` `entityId` (on
 * the tool message of that id when `toolMessage`).
 */
export function recordIssuer(
  conversation: Conversation,
  subtype: Subtype,
  entityId: string,
  toolMessage = false,
): Conversation {
  const { issuers } = conversation.parts;
  const issuer = conversation.producer;
  const space = recordSpace(subtype, toolMessage);
  const slot = issuers.slotOf(entityId, space);
  if (slot !== undefined && issuers.at(slot)!.issuer === issuer) return conversation;
  const record = issuerRecord(subtype, entityId, issuer, toolMessage);
  return conversation.with({
    issuers: slot === undefined ? issuers.pushNew(record, entityId, space) : issuers.setAt(slot, record),
  });
}

/** Records that this conversation's producer issued every value `message` and its tool calls carry. */
export function recordValuesOf(conversation: Conversation, message: Message): Conversation {
  let next = conversation;
  for (const record of issuersOf(message, conversation.producer))
    next = recordIssuer(next, record.subtype, record.entityId, record.toolMessage === true);
  return next;
}

/** An issuer record; `toolMessage` on a tool message's (D-HISTORY-IDS), never `false`. */
export function issuerRecord(
  subtype: Subtype,
  entityId: string,
  issuer: string | undefined,
  toolMessage = false,
): ValueIssuer {
  return toolMessage ? { subtype, entityId, issuer, toolMessage: true } : { subtype, entityId, issuer };
}

/** The record of a value `message` itself carries, issued by `issuer` (a tool message's is its own, D-HISTORY-IDS). */
export const messageRecord = (message: Pick<Message, "id" | "role">, issuer: string | undefined): ValueIssuer =>
  issuerRecord("message", message.id, issuer, message.role === "tool");

/** The records for the values a message and its tool calls carry, all issued by `issuer`. */
export function issuersOf(message: Message, issuer: string | undefined, into: ValueIssuer[] = []): ValueIssuer[] {
  // An activity message holds no value by schema (R-REASON-18, #96): nothing to attribute.
  if (message.role === "activity") return into;
  if (hasValue(message)) into.push(messageRecord(message, issuer));
  const calls = toolCallsOf(message);
  if (calls !== undefined) {
    for (const call of calls) if (hasValue(call)) into.push({ subtype: "tool-call", entityId: call.id, issuer });
  }
  return into;
}

/**
 * Drops the records of the values `gone` names by kind and id (`recordKind`: they went with their
 * message or tool call, which a snapshot replaced or removed, R-REASON-20) and appends `added`.
 * Rebuilds the table (O(values)).
 */
export function replaceIssuers(
  conversation: Conversation,
  gone: KindMap<true>,
  added: readonly ValueIssuer[],
): Conversation {
  const before = conversation.parts.issuers.toArray();
  const isGone = (r: ValueIssuer): boolean => gone.has(recordKind(r), r.entityId);
  if (added.length === 0 && !before.some(isGone)) return conversation;
  const next = before.filter((r) => !isGone(r));
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
