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

/**
 * A `ReasoningHistory` argument: an object whose `messages`, `incomplete` and `issuers` (and
 * `durations`, if any) are arrays of objects, each message with a string `id` and `role`. Read in a
 * guard (a getter may throw, a UI store may hold `null` where a message was): what a caller reads of it
 * next cannot fail inside. O(entries), as every caller is.
 */
export function checkHistory(history: unknown, caller: string): void {
  const problem = historyProblem(history);
  if (problem !== undefined) throw new TypeError(`agui-reasoning: ${caller} expects a ReasoningHistory: ${problem}`);
}

function historyProblem(history: unknown): string | undefined {
  try {
    if (typeof history !== "object" || history === null) return "got no object";
    const h = history as Record<string, unknown>;
    for (const list of ["messages", "incomplete", "issuers", "durations"]) {
      const entries = h[list];
      if (entries === undefined && list === "durations") continue;
      if (!Array.isArray(entries)) return `its ${list} is not an array`;
      for (let i = 0; i < entries.length; i++) {
        const entry: unknown = entries[i];
        if (typeof entry !== "object" || entry === null) return `its ${list}[${i}] is not an object`;
        if (list !== "messages") continue;
        const { id, role } = entry as { id?: unknown; role?: unknown };
        if (typeof id !== "string" || typeof role !== "string") return `its messages[${i}] has no string id and role`;
      }
    }
    return undefined;
  } catch {
    // Never the thrown error's message: it may quote the conversation (D-REDACT).
    return "a read of it threw";
  }
}
