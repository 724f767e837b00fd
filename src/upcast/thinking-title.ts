import { isPlainObject } from "../core/json";
/** This package's key inside an event's open metadata (D-THINK-TITLE); `ag-ui` is reserved for the protocol. */
export const METADATA_KEY = "agui-reasoning";

type Obj = Record<string, unknown>;

/** Where `THINKING_START.title` went (D-THINK-TITLE). */
export type TitlePlacement =
  /** Into `metadata["agui-reasoning"].thinkingTitle`; `metadata` is the new metadata object. */
  | { readonly kind: "moved"; readonly metadata: Obj }
  /** Nowhere: the producer's metadata already uses the place, and producer metadata is never overwritten. Lossy. */
  | { readonly kind: "dropped" }
  /** Left on the event: `metadata` is malformed, so enforcement rejects the event and nothing may be repaired here. */
  | { readonly kind: "left" };

/**
 * Puts a legacy span title into the translated event's metadata, merged with what the event carries
 * (metadata is open by key; the `ag-ui` key is the protocol's, so the package uses its own).
 */
export function placeTitle(metadata: unknown, title: string): TitlePlacement {
  if (metadata === undefined) return { kind: "moved", metadata: { [METADATA_KEY]: { thinkingTitle: title } } };
  if (!isPlainObject(metadata)) return { kind: "left" };
  const own = metadata[METADATA_KEY];
  if (own === undefined) return { kind: "moved", metadata: { ...metadata, [METADATA_KEY]: { thinkingTitle: title } } };
  if (isPlainObject(own) && !Object.prototype.hasOwnProperty.call(own, "thinkingTitle")) {
    return { kind: "moved", metadata: { ...metadata, [METADATA_KEY]: { ...own, thinkingTitle: title } } };
  }
  return { kind: "dropped" };
}
