import type { AguiEvent, StepContext } from "../core/types";
import { FAMILIES, NAMESPACE_RULE, type Family } from "./families";
import { protocolError, truncateId } from "../core/errors";
import { emptied } from "../core/emptied";

/** One item of a family in the current run. */
export interface Item {
  /** `subagentRunId` of the opener; `undefined` = the parent agent. */
  readonly owner: string | undefined;
  /**
   * Open right now. A closed item stays until the run ends, so that a reopen can be checked
   * against its owner (R-TEXT-6) and a finished subagent id is not announced again.
   */
  open: boolean;
}

/** One family's items in the current run. */
export interface FamilyItems {
  /** id → item, for families not tracked per owner. */
  byId: Map<string, Item>;
  /** owner (`undefined` = parent agent) → id → item, for per-owner families (steps). */
  byOwner: Map<string | undefined, Map<string, Item>>;
  /** Items open right now. */
  open: number;
}

/**
 * The open sets of every family (one namespace each, R-REASON-12). Mutated in place: the verifier's
 * state is private and threaded linearly, and copying sets per event would be O(n).
 */
export interface OpenSets {
  /** Indexed like `FAMILIES`. */
  readonly families: readonly FamilyItems[];
  /** Open items across every family (`maxOpenItems`). */
  total: number;
}

export function createOpenSets(): OpenSets {
  return { families: FAMILIES.map(() => ({ byId: new Map(), byOwner: new Map(), open: 0 })), total: 0 };
}

/** Run-scoped tracking ends with the run: a new run starts with nothing open (R-RUN-11, #21). */
export function resetOpenSets(sets: OpenSets): void {
  for (const f of sets.families) {
    f.byId = emptied(f.byId);
    f.byOwner = emptied(f.byOwner);
    f.open = 0;
  }
  sets.total = 0;
}

/** The item id an event names, or MALFORMED_EVENT when the key field is not a string. */
export function keyOf(event: AguiEvent, family: Family, ctx: StepContext): string {
  const id = event[family.key];
  if (typeof id === "string") return id;
  throw protocolError(
    "MALFORMED_EVENT",
    "R-PROC-4",
    event,
    ctx,
    [],
    `/${family.key} must be a string (got ${id === null ? "null" : typeof id}).`,
  );
}

/** The event's `subagentRunId` (absent = parent agent); MALFORMED_EVENT for `null` or a non-string (R-SUB-1). */
export function tagOf(event: AguiEvent, ctx: StepContext): string | undefined {
  const tag = event.subagentRunId;
  if (tag === undefined || typeof tag === "string") return tag;
  throw malformedTag(event, ctx);
}

function malformedTag(event: AguiEvent, ctx: StepContext): Error {
  const tag = event.subagentRunId;
  return protocolError(
    "MALFORMED_EVENT",
    "R-SUB-1",
    event,
    ctx,
    [],
    `/subagentRunId must be a string when present (got ${tag === null ? "null" : typeof tag}); absent means the parent agent.`,
  );
}

/** The map holding `family`'s items for `owner` (created on first use for per-owner families). */
export function scopeOf(sets: OpenSets, family: Family, owner: string | undefined): Map<string, Item> {
  const f = sets.families[family.index]!;
  if (!family.perOwner) return f.byId;
  let scope = f.byOwner.get(owner);
  if (scope === undefined) {
    scope = new Map();
    f.byOwner.set(owner, scope);
  }
  return scope;
}

/** The item `id` of `family` (of `owner`, for per-owner families), without creating anything. */
function findItem(sets: OpenSets, family: Family, id: string, owner: string | undefined): Item | undefined {
  const f = sets.families[family.index]!;
  return family.perOwner ? f.byOwner.get(owner)?.get(id) : f.byId.get(id);
}

/**
 * Checks that `id` may be opened by `owner` (R-STREAM-1, R-TEXT-5/6, subagent ids are single-use)
 * and returns the closed item being reopened, if any. Does not change anything.
 */
export function checkOpen(
  sets: OpenSets,
  family: Family,
  event: AguiEvent,
  id: string,
  owner: string | undefined,
  ctx: StepContext,
): Item | undefined {
  const item = findItem(sets, family, id, owner);
  if (item === undefined) return undefined;
  if (item.open || !family.reopenable) {
    throw protocolError(
      "DUPLICATE_OPEN",
      family.rules.duplicateOpen,
      event,
      ctx,
      [id],
      item.open
        ? `A ${family.noun} with ID ${quote(id)} is already open; close it with ${family.closes[0]} before using the id again.`
        : `The ${family.noun} ${quote(id)} has already ended in this run; its id cannot be used for another one.`,
    );
  }
  if (family.attributed && owner !== undefined && owner !== item.owner) {
    throw protocolError(
      "ATTRIBUTION_MISMATCH",
      family.rules.attribution,
      event,
      ctx,
      [id],
      `subagentRunId ${quote(owner)} does not match the owner of the closed ${family.noun} ${quote(id)} ` +
        `(${ownerText(item.owner)}); only its owner may reopen it.`,
    );
  }
  return item;
}

/** The parent an opener names must have been announced in this run (subagents page, "Nesting"). */
export function checkParent(sets: OpenSets, family: Family, event: AguiEvent, ctx: StepContext): void {
  const field = family.parentField;
  if (field === undefined) return;
  const parent = event[field];
  if (parent === undefined) return;
  if (typeof parent !== "string") {
    throw protocolError("MALFORMED_EVENT", "R-PROC-4", event, ctx, [], `/${field} must be a string when present.`);
  }
  if (!sets.families[family.index]!.byId.has(parent)) {
    throw protocolError(
      "ORPHAN_CONTENT",
      family.rules.orphan,
      event,
      ctx,
      [parent],
      `${field} ${quote(parent)} names no ${family.noun} announced in this run.`,
    );
  }
}

/** Opens `id` (after `checkOpen` and the caller's other checks passed). */
export function commitOpen(
  sets: OpenSets,
  family: Family,
  reopened: Item | undefined,
  id: string,
  owner: string | undefined,
): void {
  if (reopened !== undefined) reopened.open = true;
  else scopeOf(sets, family, owner).set(id, { owner, open: true });
  sets.families[family.index]!.open++;
  sets.total++;
}

/**
 * A CONTENT/ARGS event: `id` must be open (R-STREAM-2) and a tag must agree with the opener's
 * (R-SUB-2; an untagged continuation always agrees). The hot path: one lookup, no allocation.
 */
export function continueItem(sets: OpenSets, family: Family, event: AguiEvent, id: string, ctx: StepContext): void {
  const tag = event.subagentRunId;
  const item = family.perOwner
    ? findItem(sets, family, id, tagOf(event, ctx))
    : sets.families[family.index]!.byId.get(id);
  if (continues(family, item, tag)) return;
  if (item === undefined || !item.open) throw orphan(sets, family, event, id, ctx, "ORPHAN_CONTENT");
  throw mismatch(family, event, id, item.owner, ctx);
}

/** What `continueItem` lets pass: `item` is open, and the tag is absent, its owner's, or of a family without attribution. */
function continues(family: Family, item: Item | undefined, tag: unknown): boolean {
  return item !== undefined && item.open && (tag === undefined || tag === item.owner || !family.attributed);
}

/** An END event: `id` must be open (R-STREAM-2), the tag must agree (R-SUB-2, D-SPAN-OWNER); closes it. */
export function closeItem(sets: OpenSets, family: Family, event: AguiEvent, id: string, ctx: StepContext): void {
  const tag = event.subagentRunId;
  const item = family.perOwner
    ? findItem(sets, family, id, tagOf(event, ctx))
    : sets.families[family.index]!.byId.get(id);
  if (item === undefined || !item.open) {
    if (family.perOwner) checkOtherOwners(sets, family, event, id, ctx);
    throw orphan(sets, family, event, id, ctx, "ORPHAN_END");
  }
  if (tag !== undefined && tag !== item.owner && family.attributed) throw mismatch(family, event, id, item.owner, ctx);
  item.open = false;
  sets.families[family.index]!.open--;
  sets.total--;
}

function mismatch(family: Family, event: AguiEvent, id: string, owner: string | undefined, ctx: StepContext): Error {
  const tag = event.subagentRunId;
  if (typeof tag !== "string") return malformedTag(event, ctx);
  return protocolError(
    "ATTRIBUTION_MISMATCH",
    family.rules.attribution,
    event,
    ctx,
    [id],
    `subagentRunId ${quote(tag)} does not match the ${family.noun} ${quote(id)} opener's owner (${ownerText(owner)}).`,
  );
}

/** A per-owner item finished under another owner's tag is a mismatch, not a missing START (R-SUB-2). */
function checkOtherOwners(sets: OpenSets, family: Family, event: AguiEvent, id: string, ctx: StepContext): void {
  const tag = event.subagentRunId as string | undefined;
  for (const [owner, scope] of sets.families[family.index]!.byOwner) {
    if (owner !== tag && scope.get(id)?.open === true) {
      throw protocolError(
        "ATTRIBUTION_MISMATCH",
        family.rules.attribution,
        event,
        ctx,
        [id],
        `The ${family.noun} ${quote(id)} is open under ${ownerText(owner)}, not ${ownerText(tag)}: it must be finished by whoever started it.`,
      );
    }
  }
}

function orphan(
  sets: OpenSets,
  family: Family,
  event: AguiEvent,
  id: string,
  ctx: StepContext,
  code: "ORPHAN_CONTENT" | "ORPHAN_END",
): Error {
  const other = family.separateFrom === undefined ? undefined : FAMILIES[family.separateFrom]!;
  // A message open in the other message family (a snapshot may have restated its role): the
  // diagnostic names the family that holds it open, and what closes it (D-SNAPSHOT-ROLE).
  const holder =
    family.declaresRole === undefined
      ? undefined
      : MESSAGE_FAMILIES.find((f) => f !== family && sets.families[f.index]!.byId.get(id)?.open === true);
  const [rule, why] =
    other !== undefined && sets.families[other.index]!.byId.get(id)?.open === true
      ? [NAMESPACE_RULE, `: that id is open as a ${other.noun}, which is a separate namespace.`]
      : holder !== undefined
        ? [
            family.rules.orphan,
            `: it is open as a ${holder.noun}, which only ${holder.closes.join(" or ")} closes (a MESSAGES_SNAPSHOT restating its role does not change that).`,
          ]
        : [family.rules.orphan, " (one that was not started, or has already ended)."];
  return protocolError(code, rule, event, ctx, [id], `No active ${family.noun} found with ID ${quote(id)}${why}`);
}

/** Every item of the run, open or closed, family by family in table order, each in the order first opened. */
export function* runItems(
  sets: OpenSets,
): Generator<{ readonly family: Family; readonly id: string; readonly item: Item }> {
  for (const family of FAMILIES) {
    const f = sets.families[family.index]!;
    for (const [id, item] of f.byId) yield { family, id, item };
    for (const scope of f.byOwner.values()) for (const [id, item] of scope) yield { family, id, item };
  }
}

/**
 * Whether a continuation of `family`'s item `id` tagged `tag` (`undefined`: untagged) passes
 * `continueItem` (the same test, `continues`). Only for families not tracked per owner (the delta
 * lane relies on it).
 */
export function continuesOpenItem(sets: OpenSets, family: Family, id: string, tag: string | undefined): boolean {
  return !family.perOwner && continues(family, sets.families[family.index]!.byId.get(id), tag);
}

/** The message families (their START declares a role, D-ROLE-CONFLICT). */
const MESSAGE_FAMILIES: readonly Family[] = FAMILIES.filter((f) => f.declaresRole !== undefined);

/** Whether `id` is open as a message of any message family (reasoning or text). */
export function isOpenMessage(sets: OpenSets, id: string): boolean {
  return MESSAGE_FAMILIES.some((f) => sets.families[f.index]!.byId.get(id)?.open === true);
}

/** An id (or role, or owner) quoted for a detail sentence; long ids are truncated. */
export function quote(id: string): string {
  return `'${truncateId(id)}'`;
}

/** Who owns an item, for a detail sentence. */
export function ownerText(owner: string | undefined): string {
  return owner === undefined ? "the parent agent" : `subagent ${quote(owner)}`;
}
