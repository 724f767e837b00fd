/**
 * How deeply a JSON value nests: 0 for a scalar, 1 for `{}` or `[]`, one more per level inside.
 * Iterative, so any depth JSON.parse accepted can be measured.
 */
export function nestingDepth(value: unknown): number {
  if (typeof value !== "object" || value === null) return 0;
  let deepest = 0;
  // Containers still to open, with their depth (parallel stacks: no object per entry).
  const values: object[] = [value];
  const depths: number[] = [1];
  while (values.length > 0) {
    const node = values.pop()!;
    const depth = depths.pop()!;
    if (depth > deepest) deepest = depth;
    for (const child of Object.values(node) as unknown[]) {
      if (typeof child === "object" && child !== null) {
        values.push(child);
        depths.push(depth + 1);
      }
    }
  }
  return deepest;
}

/**
 * The most deeply nested source event seen, so that output which cannot be printed (JSON.stringify
 * recurses, and overflows the call stack on hostile nesting) can name the event at fault.
 */
export class DeepestEvent {
  /** Source index of the deepest event so far (`undefined` before the first nested one). */
  index: number | undefined = undefined;
  /** Its nesting depth. */
  depth = 0;

  observe(event: unknown, index: number): void {
    const depth = nestingDepth(event);
    if (depth > this.depth) {
      this.depth = depth;
      this.index = index;
    }
  }
}
