import type { Message } from "@ag-ui/core";
import type { ValueIssuer } from "./types";
import { quotedId } from "../core/errors";

/**
 * What identifies a message in a history (D-HISTORY-IDS): its id together with its kind, whether it is a tool
 * message. A tool result may share its id with the message holding its call (D-TOOL-RESULT-ID:
 * LangGraph Python's unstreamed tool call), so an id alone names up to two messages. The kind is also the
 * kind of the value the message itself carries (`recordKind`).
 */
export const messageKind = (message: Pick<Message, "role">): string =>
  message.role === "tool" ? "tool message" : "message";

/**
 * A map keyed by a kind and an id (a message by `messageKind`, a value or issuer record by `recordKind`, a
 * message or tool call among `incomplete` items by its kind), held as one map of raw ids per kind; as a set,
 * `KindMap<true>`. Why: the id string has its hash cached after its first lookup, where a concatenated key is
 * a fresh string to build, flatten and hash at every lookup, which was most of a middleware run on a long
 * conversation.
 */
export class KindMap<V> {
  readonly #kinds = new Map<string, Map<string, V>>();

  get(kind: string, id: string): V | undefined {
    return this.#kinds.get(kind)?.get(id);
  }

  has(kind: string, id: string): boolean {
    return this.#kinds.get(kind)?.has(id) ?? false;
  }

  set(kind: string, id: string, value: V): this {
    const ids = this.#kinds.get(kind);
    if (ids === undefined) this.#kinds.set(kind, new Map([[id, value]]));
    else ids.set(id, value);
    return this;
  }
}

/**
 * Reads a list of messages in order (R-EVT-8: a list names each message once): for each, the index
 * of the copy of the same message (`messageKind` and id) held before it, or undefined for the first. The copy
 * held is the first one, or with `keep: "last"` the latest (each replacing the one before it).
 */
export function earlierCopies(
  keep: "first" | "last" = "first",
): (message: Pick<Message, "id" | "role">, at: number) => number | undefined {
  // Message (as kind and id) → index of the copy held so far.
  const held = new KindMap<number>();
  return (message, at) => {
    const kind = messageKind(message);
    const before = held.get(kind, message.id);
    if (before === undefined || keep === "last") held.set(kind, message.id, at);
    return before;
  };
}

/**
 * The kind of the value an issuer record is for (D-ISSUER): its subtype, but a value on a tool message has its
 * own (`toolMessage`), apart from one on the message of another role sharing its id (D-TOOL-RESULT-ID,
 * D-HISTORY-IDS).
 */
export const recordKind = (record: { subtype: string; toolMessage?: boolean }): string =>
  record.toolMessage === true ? "tool message" : record.subtype;

/** How a repeat names its message: `the id "x"`, or `the tool message id "x"` (D-HISTORY-IDS). */
export function repeatedId(message: Pick<Message, "id" | "role">): string {
  return `the ${message.role === "tool" ? "tool message id" : "id"} ${quotedId(message.id)}`;
}

/**
 * `issuers` with each record of a message that names only a tool message marked as that tool
 * message's (`toolMessage`). Such a record was written before tool messages had records of their
 * own (or by hand): its id named the tool message then, as routing by id still does when no message
 * of another role has it (D-TOOL-RESULT-ID). Where the tool message has a record of its own too (a
 * value it got since), that one stands and the old one goes. `issuers` itself when there is none to
 * mark. O(messages + records).
 */
export function ownIssuers(
  messages: readonly Message[],
  issuers: readonly ValueIssuer[],
  given?: KindMap<true>,
): readonly ValueIssuer[] {
  const unmarked = ({ subtype, toolMessage }: ValueIssuer): boolean => subtype === "message" && toolMessage !== true;
  if (given === undefined) {
    // Only a record with a tool message's id can be one to mark: most histories have none, and are
    // spared keying every message (O(tool messages) instead, once per run input or middleware run).
    const toolIds = new Set<string>();
    for (const message of messages) if (message.role === "tool") toolIds.add(message.id);
    if (!issuers.some((record) => unmarked(record) && toolIds.has(record.entityId))) return issuers;
  }
  const held = given ?? messageIds(messages);
  const old = (record: ValueIssuer): boolean =>
    unmarked(record) && !held.has("message", record.entityId) && held.has("tool message", record.entityId);
  if (!issuers.some(old)) return issuers;
  const own = new Set(issuers.filter((r) => r.toolMessage === true).map((r) => r.entityId));
  return issuers.flatMap((r) => (!old(r) ? [r] : own.has(r.entityId) ? [] : [{ ...r, toolMessage: true as const }]));
}

/** Each of `messages` as its kind and id (a tool result may share its id, D-TOOL-RESULT-ID). */
export function messageIds(messages: readonly Pick<Message, "id" | "role">[]): KindMap<true> {
  const ids = new KindMap<true>();
  for (const message of messages) ids.set(messageKind(message), message.id, true);
  return ids;
}

/** Whether a record's `toolMessage` is other than absent, or `true` on a record of subtype "message" (D-HISTORY-IDS). */
export const wrongToolMessage = (record: { subtype?: unknown; toolMessage?: unknown }): boolean =>
  record.toolMessage !== undefined && (record.toolMessage !== true || record.subtype !== "message");
