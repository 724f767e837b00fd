import { FAMILY_BY_CHUNK_TYPE } from "../chunks/chunk-families";
import { addStream, createExpandState, type ExpandState, type OpenStream } from "../chunks/lanes";
import { quotedId } from "../core/errors";
import { JsonShape } from "../storage/json-shape";

/** One open chunk stream in JSON. */
export interface OpenStreamJSON {
  /** The family, by its chunk type: `REASONING_MESSAGE_CHUNK`, `TEXT_MESSAGE_CHUNK`, `TOOL_CALL_CHUNK`. */
  readonly chunkType: string;
  readonly id: string;
  /** The lane: the owner's `subagentRunId`, `null` for the parent agent. */
  readonly owner: string | null;
  /** What the opener established for each of the family's opener fields, in table order (`null`: absent). */
  readonly opener: readonly (string | null)[];
}

/** `ExpandState` in JSON: the open streams in the order they were opened (R-STREAM-15c closes them in that order). */
export interface ExpandStateJSON {
  readonly streams: readonly OpenStreamJSON[];
}

export function expandStateToJSON(state: ExpandState): ExpandStateJSON {
  const streams = [...state.lanes.values()].map((s) => ({
    chunkType: s.family.chunkType,
    id: s.id,
    owner: s.owner ?? null,
    opener: s.opener.map((v) => v ?? null),
  }));
  return { streams };
}

/** Reads (and checks) what `expandStateToJSON` wrote; a bad part is a `TypeError` naming its JSON pointer. */
export function expandStateFromJSON(json: unknown, shape = new JsonShape("expandStateFromJSON")): ExpandState {
  const state = createExpandState();
  shape.array(shape.object(json, "").streams, "/streams").forEach((entry, i) => {
    const stream = readStream(entry, shape.at(`/streams/${i}`));
    if (state.lanes.has(stream.owner))
      shape.fail(`/streams/${i}/owner`, "names a lane that already has an open stream (one per lane, R-STREAM-15)");
    if (state.byId[stream.family.namespace].has(stream.id)) {
      shape.fail(`/streams/${i}/id`, `${quotedId(stream.id)} is already open in another lane`);
    }
    addStream(state, stream);
  });
  return state;
}

function readStream(entry: unknown, shape: JsonShape): OpenStream {
  const doc = shape.object(entry, "");
  const family = FAMILY_BY_CHUNK_TYPE.get(shape.string(doc.chunkType, "/chunkType"));
  if (family === undefined)
    return shape.fail("/chunkType", `must be one of ${[...FAMILY_BY_CHUNK_TYPE.keys()].join(" | ")}`);
  const opener = shape.array(doc.opener, "/opener");
  if (opener.length !== family.openerFields.length) {
    shape.fail(
      "/opener",
      `must hold ${family.openerFields.length} value(s) for a ${family.itemName} (got ${opener.length})`,
    );
  }
  return {
    family,
    id: shape.string(doc.id, "/id"),
    owner: shape.stringOrNull(doc.owner, "/owner"),
    opener: opener.map((value, i) => {
      const field = family.openerFields[i]!;
      const established = shape.stringOrNull(value, `/opener/${i}`);
      if (established === undefined && field.required)
        shape.fail(`/opener/${i}`, `(${field.name}) is required for a ${family.itemName}`);
      if (established !== undefined && field.oneOf !== undefined && !field.oneOf.has(established)) {
        shape.fail(`/opener/${i}`, `(${field.name}) must be one of ${[...field.oneOf].join(" | ")}`);
      }
      return established;
    }),
  };
}
