import { isPlainObject } from "../core/json";
import { toPointer } from "../schema/json-pointer";
import { METADATA_KEY } from "../upcast/thinking-title";

/** What a REASONING_START's metadata becomes on a THINKING_START. */
export interface TitleRecovery {
  /** The title D-THINK-TITLE moved into `metadata["agui-reasoning"].thinkingTitle`, if it is there. */
  readonly title: string | undefined;
  /** JSON pointers of the metadata that has no place in the 0.x shape (dropped). */
  readonly dropped: readonly string[];
}

/**
 * What an event's metadata becomes in its 0.x shape. On a THINKING_START (`titled`) D-THINK-TITLE is
 * reversed: `metadata["agui-reasoning"].thinkingTitle` (a string) goes back to `title`. Every other key
 * is dropped and named. A `thinkingTitle` that is not a string is not a title (nothing is coerced,
 * R-VER-4): it is dropped like any other key.
 */
export function recoverTitle(metadata: unknown, titled: boolean): TitleRecovery {
  if (!isPlainObject(metadata)) return { title: undefined, dropped: ["/metadata"] };
  const dropped: string[] = [];
  let title: string | undefined;
  for (const key of Object.keys(metadata)) {
    const own = metadata[key];
    if (!titled || key !== METADATA_KEY || !isPlainObject(own) || typeof own.thinkingTitle !== "string") {
      dropped.push(toPointer(["metadata", key]));
      continue;
    }
    title = own.thinkingTitle;
    for (const inner of Object.keys(own))
      if (inner !== "thinkingTitle") dropped.push(toPointer(["metadata", key, inner]));
  }
  return { title, dropped };
}
