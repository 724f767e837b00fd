import { quotedId } from "./errors";
import { itemAt, jsonType, lengthOf, NotJsonData, setOwn } from "./json";

/**
 * A public function's own arguments, checked where TypeScript did not check them (JavaScript, `any`,
 * a history still `undefined` on a UI's first render): a wrong one is a `TypeError` naming the
 * function, never a failure from inside it.
 */

/**
 * `options` read once, now, into a plain copy the function reads instead (`{}` when absent): every
 * string-keyed property it has, own or inherited (a class's getters and methods too, not
 * `Object.prototype`'s), each read in a guard. Anything but an object is a `TypeError`, and so is a read
 * that throws (a getter, a revoked proxy): it names the function and the option, never what was thrown,
 * which may quote anything (D-REDACT), and keeps it as no `cause` either, as `checkHistory` does.
 * `named` is how the messages begin (the testing kit names its own arguments so).
 */
export function optionsOf<T extends object>(
  options: T | undefined,
  caller: string,
  named = `agui-reasoning: ${caller}'s options`,
): T {
  if (options === undefined) return {} as T;
  if (typeof options !== "object" || options === null) throw new TypeError(`${named} must be an object`);
  const copy: Record<string, unknown> = {};
  const seen = new Set<string>(["constructor"]);
  let key: string | undefined;
  try {
    for (let level: object | null = options; level !== null && level !== Object.prototype;) {
      key = undefined;
      for (const name of Object.getOwnPropertyNames(level)) {
        if (seen.has(name)) continue;
        seen.add((key = name));
        setOwn(copy, name, (options as Record<string, unknown>)[name]);
      }
      key = undefined;
      level = Object.getPrototypeOf(level) as object | null;
    }
  } catch {
    const what = key === undefined ? "listing its properties threw" : `a read of ${shownKey(key)} threw`;
    throw new TypeError(`${named} cannot be read: ${what}`);
  }
  return copy as T;
}

/** An option's name as a message shows it: an identifier in backquotes, anything else quoted (and truncated). */
function shownKey(key: string): string {
  return /^[A-Za-z_$][\w$]{0,79}$/.test(key) ? `\`${key}\`` : quotedId(key);
}

/**
 * A `ReasoningHistory` argument: an object whose `messages`, `incomplete` and `issuers` (and
 * `durations`, if any) are arrays of objects, each message with a string `id` and `role`, and its
 * `toolCalls`, if an array, one of objects. Read in a guard (a getter may throw, a UI store may hold
 * `null` where a message was), every property of each entry once: what a caller reads of it next
 * cannot fail inside. A hole in any of these lists is refused, as in an event (JSON has none): every
 * way a history comes back in runs this one check (D-HISTORY-IDS). A fault is named by its JSON
 * pointer in the words the stored form's reader uses. O(entries), as every caller is. Returns a copy of
 * each list, no longer than the length the check read once (`lengthOf`), for the caller to read instead of
 * the argument's: a list that answers a second read of its length otherwise is never read past it.
 */
export function checkHistory<T>(history: T, caller: string): T {
  const lists: Record<string, unknown[] | undefined> = {};
  const problem = historyProblem(history, lists);
  if (problem !== undefined) throw new TypeError(`agui-reasoning: ${caller}: ${problem}`);
  return lists as T;
}

/** What is wrong with `history`, or `undefined` with each of its lists read into `lists` (`durations` only if it has one). */
function historyProblem(history: unknown, lists: Record<string, unknown[] | undefined>): string | undefined {
  let at = "/";
  try {
    if (!readEach(history)) return `/ must be an object (got ${jsonType(history)})`;
    const h = history as Record<string, unknown>;
    for (const list of ["messages", "incomplete", "issuers", "durations"]) {
      at = `/${list}`;
      const entries = h[list];
      if (entries === undefined && list === "durations") continue;
      const read: { items?: unknown[] } = {};
      const problem = listProblem(entries, at, list === "messages" ? "message" : "object", read);
      if (problem !== undefined) return problem;
      lists[list] = read.items;
    }
    return undefined;
  } catch (error) {
    return unreadable(at, error);
  }
}

/**
 * What is wrong with the list `entries` at `pointer` (`undefined` when nothing is), in the words of
 * `checkHistory`: not an array, a length no array has, a hole, or an entry that is not what `kind`
 * asks — any value, an object, or a message (an object with a string `id` and `role`, its `toolCalls`,
 * if an array, one of tool call objects). Read in a guard, every property of each entry once, up to the
 * first fault: a sparse list claiming 2³²−1 slots ends at its first hole, and its length is read once, and
 * bounded (`lengthOf`). When nothing is wrong, `read.items` is the list's first so many entries, a new
 * array: what the caller reads instead of the list, which a proxy may make answer a second read of its
 * length otherwise. Also the testing kit's check.
 */
export function listProblem(
  entries: unknown,
  pointer: string,
  kind: "any" | "object" | "message",
  read?: { items?: unknown[] },
): string | undefined {
  // Where the walk is (-1: not in an entry, a tool call): the pointer is spelled only for a fault,
  // since a string per entry was most of the check's cost on a long conversation (a UI update's view).
  let i = -1;
  let k = -1;
  const at = (): string => pointer + (i < 0 ? "" : `/${i}`) + (k < 0 ? "" : `/toolCalls/${k}`);
  try {
    if (!Array.isArray(entries)) return `${at()} must be an array (got ${jsonType(entries)})`;
    const n = lengthOf(entries);
    for (let entry: unknown; ++i < n; k = -1) {
      entry = itemAt(entries, i);
      if (kind === "any") continue;
      if (!readEach(entry)) return `${at()} must be an object (got ${jsonType(entry)})`;
      if (kind === "object") continue;
      const { id, role, toolCalls } = entry as { id?: unknown; role?: unknown; toolCalls?: unknown };
      if (typeof id !== "string" || typeof role !== "string") return `${at()} must have a string id and role`;
      if (!Array.isArray(toolCalls)) continue;
      for (let calls = lengthOf(toolCalls), call: unknown; ++k < calls;) {
        call = itemAt(toolCalls, k);
        if (!readEach(call) || !readEach((call as { function?: unknown }).function ?? {}))
          return `${at()} must be a tool call object`;
      }
    }
    // No more than the length read (a slice reads the length again, and stops at `n`): a copy in one
    // step, far cheaper than one per entry on a long conversation.
    i = -1;
    if (read !== undefined) read.items = Array.prototype.slice.call(entries, 0, n) as unknown[];
    return undefined;
  } catch (error) {
    return unreadable(at(), error);
  }
}

/** Why the value at `at` could not be read: never the thrown error's message, which may quote the conversation (D-REDACT). */
function unreadable(at: string, error: unknown): string {
  return `${at} cannot be read as JSON data (${error instanceof NotJsonData ? error.message : "a read of it threw"})`;
}

/**
 * `read()`: the part of `caller` that reads again a history `checkHistory` passed. A getter or proxy may
 * answer a second read otherwise than the first (throw, or give what the check refuses); what then fails
 * inside is a `TypeError` naming `caller`, never what was thrown (D-REDACT). `read` runs no code of the
 * caller's (an `onWarning`), whose errors are its own.
 */
export function readAgain<T>(caller: string, read: () => T): T {
  try {
    return read();
  } catch {
    throw new TypeError(
      `agui-reasoning: ${caller}: a read of the history failed after it was checked (a getter or proxy that answers a second read otherwise than the first)`,
    );
  }
}

/** Whether `value` is an object, having read each of its enumerable properties once (a getter may throw). */
export function readEach(value: unknown): value is object {
  if (typeof value !== "object" || value === null) return false;
  // for-in, not Object.values: no array per entry, which made the check 2.7 times slower on a long
  // conversation (it runs per UI update, in reasoningView). An inherited enumerable property is read too.
  // eslint-disable-next-line @typescript-eslint/no-unused-expressions -- the read is the point
  for (const key in value) (value as Record<string, unknown>)[key];
  return true;
}
