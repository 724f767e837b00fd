/**
 * A public function's own arguments, checked where TypeScript did not check them (JavaScript, `any`,
 * a history still `undefined` on a UI's first render): a wrong one is a `TypeError` naming the
 * function, never a failure from inside it.
 */

/** `options` as given (`{}` when absent); anything but an object is a `TypeError`. */
export function optionsOf<T extends object>(options: T | undefined, caller: string): T {
  if (options === undefined) return {} as T;
  if (typeof options !== "object" || options === null) {
    throw new TypeError(`agui-reasoning: ${caller}'s options must be an object`);
  }
  return options;
}

/** A `ReasoningHistory` argument: an object whose `messages`, `incomplete` and `issuers` are arrays. */
export function checkHistory(history: unknown, caller: string): void {
  const h = history as Record<string, unknown> | null;
  if (typeof h !== "object" || h === null || !["messages", "incomplete", "issuers"].every((k) => Array.isArray(h[k]))) {
    throw new TypeError(
      `agui-reasoning: ${caller} expects a ReasoningHistory (an object whose messages, incomplete and issuers are arrays)`,
    );
  }
}
