import type { AguiEvent } from "../core/types";
import { CHUNK_FAMILIES, type ChunkFamily, type IdNamespace } from "./chunk-families";
import { endEvent } from "./synthesize";

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
export function closeLane(state: ExpandState, owner: string | undefined, out: AguiEvent[]): void {
  const stream = state.lanes.get(owner);
  if (stream === undefined) return;
  state.lanes.delete(owner);
  state.byId[stream.family.namespace].delete(stream.id);
  if (owner !== undefined) state.inSubagentLanes[stream.family.index]!.delete(stream);
  out.push(endEvent(stream));
}

/** Ends every open stream, in the order they were opened (R-STREAM-15c). */
export function closeAllLanes(state: ExpandState, out: AguiEvent[]): void {
  for (const stream of state.lanes.values()) out.push(endEvent(stream));
  state.lanes.clear();
  state.byId.message.clear();
  state.byId["tool-call"].clear();
  for (const set of state.inSubagentLanes) set.clear();
}

/**
 * The stream the parent lane (no `subagentRunId`) is assembling, when it is item `id`: a chunk of
 * that stream's type naming `id`, with no field but `delta` (and `timestamp`), continues it and
 * changes no chunk state (the facade's delta lane relies on that, src/pipeline/delta-lane.ts).
 */
export function parentStreamOf(state: ExpandState, id: string): OpenStream | undefined {
  const stream = state.lanes.get(undefined);
  return stream !== undefined && stream.id === id ? stream : undefined;
}

/**
 * Whether an untagged explicit event naming item `id` of `namespace` ends no chunk stream: none is
 * open in the parent lane and none is assembling `id` (what `closeBefore` in expand-chunks.ts would
 * close).
 */
export function closesNoStream(state: ExpandState, namespace: IdNamespace, id: string): boolean {
  return state.lanes.get(undefined) === undefined && state.byId[namespace].get(id) === undefined;
}
