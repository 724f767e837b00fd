import type { StepContext } from "./types";

/** JSON pointer of each list a step shortened (in the source's event) → the source index of each element kept. */
export type ShortenedLists = NonNullable<StepContext["shortened"]>;

/**
 * `pointer`, a JSON pointer into the event a step received, as one into the event as the chain's
 * source delivered it (D-EVENT-INDEX): an index into a list an earlier step shortened becomes that
 * element's index in the source. Unchanged when nothing was shortened.
 */
export function sourcePointer(pointer: string, shortened: ShortenedLists | undefined): string {
  if (shortened === undefined) return pointer;
  let out = "";
  // Segments are escaped (RFC 6901: `~1`), so `/` only separates them.
  for (const segment of pointer.split("/").slice(1)) {
    out += `/${/^(0|[1-9]\d*)$/.test(segment) ? sourceIndex(out, Number(segment), shortened) : segment}`;
  }
  return out;
}

/** Where element `i` of the list at `list` (a JSON pointer) stood in the source's event (D-EVENT-INDEX). */
export function sourceIndex(list: string, i: number, shortened: ShortenedLists | undefined): number {
  return shortened?.get(list)?.[i] ?? i;
}
