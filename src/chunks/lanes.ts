import type { AguiEvent } from "../core/types";
import { CHUNK_FAMILIES, type ChunkFamily, type IdNamespace } from "./chunk-families";
import { endEvent } from "./synthesize";
import { emptied } from "../core/emptied";

/** The item one lane is assembling in chunk form. */
export interface OpenStream {
  readonly family: ChunkFamily;
  readonly id: string;
  /** The lane: the owner's `subagentRunId`, `undefined` for the parent agent. */
  readonly owner: string | undefined;
  /** What the opener established for each of `family.openerFields`, in the same order (defaults applied). */
  readonly opener: readonly (string | undefined)[];
}

/**
 * Chunk state of the expansion stage. Threaded linearly (the caller never reuses a state it passed
 * to `step`), so it is updated in place: the maps are the hot path.
 *
 * Invariant: a stream is in `lanes` iff it is in `byId[namespace]`, and, when its owner is a
 * subagent, in `inSubagentLanes[family.index]`.
 */
export interface ExpandState {
  /** The open stream of each lane, at most one per lane whatever its family (R-STREAM-15a/b). Key `undefined` = parent. Insertion order = opening order. */
  readonly lanes: Map<string | undefined, OpenStream>;
  /** Open streams by item id, per id namespace: finds the lane of a named chunk (R-SUB-2) and of an explicit event naming it (R-STREAM-9). */
  readonly byId: Readonly<Record<IdNamespace, Map<string, OpenStream>>>;
  /** Per family (by `family.index`): the open streams of subagent lanes, to resolve an untagged id-less continuation (R-STREAM-16). */
  readonly inSubagentLanes: readonly Set<OpenStream>[];
}

export function createExpandState(): ExpandState {
  return {
    lanes: new Map(),
    byId: { message: new Map(), "tool-call": new Map() },
    inSubagentLanes: CHUNK_FAMILIES.map(() => new Set<OpenStream>()),
  };
}

/** Registers a new stream in its (empty) lane. */
export function addStream(state: ExpandState, stream: OpenStream): void {
  state.lanes.set(stream.owner, stream);
  state.byId[stream.family.namespace].set(stream.id, stream);
  if (stream.owner !== undefined) state.inSubagentLanes[stream.family.index]!.add(stream);
}

/** Ends the stream open in `owner`'s lane, if any, appending its synthesized END to `out`. */
export function closeLane(state: ExpandState, owner: string | undefined, out: AguiEvent[], trigger: AguiEvent): void {
  const stream = state.lanes.get(owner);
  if (stream === undefined) return;
  state.lanes.delete(owner);
  state.byId[stream.family.namespace].delete(stream.id);
  if (owner !== undefined) state.inSubagentLanes[stream.family.index]!.delete(stream);
  out.push(endEvent(stream, trigger));
}

/** Ends every open stream, in the order they were opened (R-STREAM-15c). */
export function closeAllLanes(state: ExpandState, out: AguiEvent[], trigger: AguiEvent): void {
  for (const stream of state.lanes.values()) out.push(endEvent(stream, trigger));
  // The state's own collections are replaced (core/emptied.ts); its public type shows them read-only.
  const own = state as {
    lanes: ExpandState["lanes"];
    byId: Record<IdNamespace, Map<string, OpenStream>>;
    inSubagentLanes: Set<OpenStream>[];
  };
  own.lanes = emptied(own.lanes);
  own.byId.message = emptied(own.byId.message);
  own.byId["tool-call"] = emptied(own.byId["tool-call"]);
  const sets = own.inSubagentLanes;
  for (let i = 0; i < sets.length; i++) sets[i] = emptied(sets[i]!);
}

/**
 * The stream a chunk continues without changing any chunk state, if it is a plain continuation: a
 * chunk naming item `id` continues the stream assembling it, in whatever lane, unless its tag names
 * another owner (R-SUB-2); a chunk without an id continues the stream of its own lane (`tag`;
 * `undefined` = the parent's, R-STREAM-12/16). The caller checks the family. Undefined when the
 * chunk would open an item, fail, or need the ambiguity rules of an untagged id-less continuation.
 */
export function streamContinuedBy(
  state: ExpandState,
  namespace: IdNamespace,
  id: string | undefined,
  tag: string | undefined,
): OpenStream | undefined {
  const stream = id === undefined ? state.lanes.get(tag) : state.byId[namespace].get(id);
  return stream !== undefined && (tag === undefined || tag === stream.owner) ? stream : undefined;
}

/**
 * Whether an explicit event naming item `id` of `namespace`, in the lane of `tag`, ends no chunk
 * stream: none is open in that lane and none is assembling `id` (what `closeBefore` in
 * expand-chunks.ts would close).
 */
export function closesNoStream(
  state: ExpandState,
  namespace: IdNamespace,
  id: string,
  tag: string | undefined,
): boolean {
  return state.lanes.get(tag) === undefined && state.byId[namespace].get(id) === undefined;
}
