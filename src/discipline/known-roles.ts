import type { AguiEvent, StepContext } from "../core/types";
import { quote } from "./open-items";
import { protocolError } from "../core/errors";
import { presentItems } from "../core/json";

/**
 * Message id → role of every message the consumer knows, across runs (D-ROLE-CONFLICT). A `Map`,
 * never a plain object: ids are opaque and may be "__proto__".
 */
export type KnownRoles = Map<string, string>;

/**
 * Records the messages of a list (initial messages, `RUN_STARTED.input.messages`, a
 * `MESSAGES_SNAPSHOT`). A snapshot replaces messages wholesale, so it overwrites (`replace`); the
 * other lists only add ids not yet known. Entries without a string `id` and `role` are skipped, and so
 * is what follows a hole: judging their shape is enforcement's job, this is bookkeeping.
 */
export function recordMessages(roles: KnownRoles, messages: unknown, replace: boolean): void {
  if (!Array.isArray(messages)) return;
  for (const m of presentItems(messages)) {
    if (typeof m !== "object" || m === null) continue;
    const { id, role } = m as { id?: unknown; role?: unknown };
    if (typeof id !== "string" || typeof role !== "string") continue;
    if (replace || !roles.has(id)) roles.set(id, role);
  }
}

/**
 * A MESSAGES_SNAPSHOT: the known roles become those of the messages the history holds after it
 * (apply-snapshot.ts, R-STATE-3…7): the snapshot's own; the reasoning and activity messages a
 * snapshot keeps when it restates none of that role; and the items still open, which the stream
 * goes on with (D-SNAPSHOT-OPEN, D-SNAPSHOT-ROLE). The rest is forgotten: no message holds that id
 * any more, so no START can conflict with it. Why: the map lives across runs, and without this a
 * stream of runs whose fresh ids a snapshot drops again grew it by every id ever seen (issue 12,
 * finding 4). Now it is bounded by the history's size. Costs O(known + snapshot), as the snapshot.
 */
export function recordSnapshot(roles: KnownRoles, messages: unknown, isOpen: (id: string) => boolean): void {
  if (!Array.isArray(messages)) return;
  let restatesReasoning = false;
  let restatesActivity = false;
  for (const m of presentItems(messages)) {
    const role = typeof m === "object" && m !== null ? (m as { role?: unknown }).role : undefined;
    if (role === "reasoning") restatesReasoning = true;
    else if (role === "activity") restatesActivity = true;
  }
  for (const [id, role] of roles) {
    const kept =
      (role === "reasoning" && !restatesReasoning) || (role === "activity" && !restatesActivity) || isOpen(id);
    // Deleting the entry being visited is safe in a Map iteration.
    if (!kept) roles.delete(id);
  }
  recordMessages(roles, messages, true);
}

/** A streamed message declares its role; an id already known keeps its role (R-TEXT-5: established values stand). */
export function declareMessage(roles: KnownRoles, id: string, role: string): void {
  if (!roles.has(id)) roles.set(id, role);
}

/**
 * A START may not turn a known message into the other kind: reasoning text appended to an answer
 * renders the answer inside the thinking block, and the reverse (D-ROLE-CONFLICT). Returns the role
 * `id` is known with (undefined: none): a START declares an unknown one after its other checks
 * without a second lookup in a map of every id of the conversation.
 */
export function checkRoleConflict(
  roles: KnownRoles,
  id: string,
  role: string,
  event: AguiEvent,
  ctx: StepContext,
): string | undefined {
  const known = roles.get(id);
  if (known === undefined || (known === "reasoning") === (role === "reasoning")) return known;
  throw protocolError(
    "ID_ROLE_CONFLICT",
    "D-ROLE-CONFLICT",
    event,
    ctx,
    [id],
    `${event.type} opens ${quote(id)} with role ${quote(role)}, but ${quote(id)} is already known as a message with role ${quote(known)}.`,
  );
}
