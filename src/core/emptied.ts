/**
 * An empty collection in place of `collection`: itself when it is empty, else a new one — never
 * `clear()`. Why: V8 gives a cleared `Map`/`Set` a new table even when it was empty (≈ 40 ns, a
 * runtime call and garbage), and one that lived long enough to be promoted gets it in the old
 * generation, where each run boundary's tables then piled up for the major collector: the run-scoped
 * state empties a few collections per run, and this made a conversation's late runs ≈ 5 % dearer
 * than its early ones (issue 23, P2). A new collection is young and dies young.
 */
export function emptied<C extends Map<unknown, unknown> | Set<unknown>>(collection: C): C {
  if (collection.size === 0) return collection;
  return (collection instanceof Map ? new Map() : new Set()) as C;
}
