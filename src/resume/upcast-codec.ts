import type { UpcastState } from "../upcast/upcast-thinking";
import { JsonShape } from "../storage/json-shape";

/** `UpcastState` in JSON: the ids given to the open legacy span and message (`null`: none open). */
export interface UpcastStateJSON {
  readonly span: string | null;
  readonly message: string | null;
  /** The expiry verdict of the stream (R-VER-13) stays what it was when the stream started. */
  readonly expired: boolean;
}

export function upcastStateToJSON(state: UpcastState): UpcastStateJSON {
  return { span: state.span ?? null, message: state.message ?? null, expired: state.expired };
}

/** Reads (and checks) what `upcastStateToJSON` wrote; a bad part is a `TypeError` naming its JSON pointer. */
export function upcastStateFromJSON(json: unknown, shape = new JsonShape("upcastStateFromJSON")): UpcastState {
  const doc = shape.object(json, "");
  return {
    span: nonEmpty(shape, shape.stringOrNull(doc.span, "/span"), "/span"),
    message: nonEmpty(shape, shape.stringOrNull(doc.message, "/message"), "/message"),
    expired: shape.boolean(doc.expired, "/expired"),
  };
}

// The upcaster never gives an item the empty id (D-THINK-IDS).
function nonEmpty(shape: JsonShape, id: string | undefined, path: string): string | undefined {
  if (id === "") shape.fail(path, "must not be the empty string (D-THINK-IDS)");
  return id;
}
