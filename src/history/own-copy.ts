import { itemAt, lengthOf, NotJsonData, setOwn } from "../core/json";

/**
 * The package's own copy of a JSON value taken from an event (D-NO-ALIAS): mutating an event after
 * delivery must not change a published history. Primitives are shared, so a delta is never copied.
 *
 * The input is hostile (docs/security.md): it is read here, and whatever goes wrong (a throwing
 * getter or trap, a revoked proxy, a cycle, a function) is `NotJsonData`, which the caller makes a
 * MALFORMED_EVENT naming the field. A small value is copied by recursion bounded by its size; any
 * other by the walk, which is iterative (no stack for deep nesting) and copies an object reached
 * twice once (a "billion laughs" of references stays linear).
 *
 * The copy holds what JSON can carry, so it survives `exportState()` and storage: as `JSON.stringify`
 * does, an `undefined` object entry is left out and an array's becomes `null`; a BigInt, a symbol,
 * NaN or ±Infinity is refused, and so is an array's hole (`itemAt`).
 *
 * `copyChecked` is the same walk for a writer of the stored form (storedCopy, D-HISTORY-IDS), which
 * also refuses what `ownCopy` would change, so that what is written reads back equal to what was given.
 */

type Container = Record<string, unknown> | unknown[];

/**
 * While a writer's copy is made (`copyChecked`): called with each object and array copied, each
 * `undefined` array item and each -0, to refuse (throw) what the copy would not keep as it is. For
 * `ownCopy` (the event path) it is unset, and the copy does no more than test that it is.
 */
let check: ((value: unknown) => void) | undefined;

/**
 * `ownCopy(value)` with `checkValue` called as `check` says, set for this copy alone: a getter the copy runs
 * may copy a value of its own meanwhile (feed a pipeline while a history is written), and that copy is checked
 * as its own caller asks. The checks live with the writer that needs them (storedCopy,
 * src/storage/stored-copy.ts): an app that stores nothing bundles none of them.
 */
export function copyChecked<T>(value: T, checkValue: typeof check): T {
  const outer = check;
  check = checkValue;
  try {
    return copyOf(value);
  } finally {
    check = outer;
  }
}

/** A copy of `value` that shares no object with it. Throws (`NotJsonData`, or the input's own error) when it cannot be read. */
export function ownCopy<T>(value: T): T {
  return copyChecked(value, undefined);
}

/** An `undefined` array item: `null` in the copy, as JSON writes it (a writer's copy may refuse it). */
function undefinedItem(): null {
  check?.(undefined);
  return null;
}

function copyOf<T>(value: T): T {
  if (typeof value !== "object" || value === null) return leaf(value) as T;
  // Most values an event nests are small (metadata, a patch, an activity's content): copied by plain
  // recursion first, which needs none of the walk's bookkeeping (a Map and a Set per value).
  // (A getter may feed the pipeline, which copies a value of its own meanwhile: its budget is its own.)
  const outer = budget;
  budget = SMALL;
  let small: Container | undefined;
  try {
    small = smallCopy(value);
  } finally {
    budget = outer;
  }
  if (small !== undefined) return small as T;
  // The copy of every object reached so far, and the objects whose copy is still being filled (a cycle).
  const copies = new Map<object, Container>();
  const filling = new Set<object>();
  // Work: fill `key` of `target` with the copy of `source`; `undefined` target: leave `source` (done).
  const stack: { source: unknown; target: Container | undefined; key: string | number }[] = [];
  const root = open(value, copies, filling, stack);
  while (stack.length > 0) {
    const { source, target, key } = stack.pop()!;
    if (target === undefined) {
      filling.delete(source as object);
      continue;
    }
    if (typeof source !== "object" || source === null) {
      // Only arrays get here with `undefined` (an object's undefined entries are left out by `open`).
      (target as Record<string | number, unknown>)[key] = source === undefined ? undefinedItem() : leaf(source);
      continue;
    }
    if (filling.has(source)) throw new NotJsonData("it contains a cycle");
    (target as Record<string | number, unknown>)[key] = copies.get(source) ?? open(source, copies, filling, stack);
  }
  return root as T;
}

/**
 * Entries (of any depth) `smallCopy` copies before it gives up. Bounds its recursion, and its work on
 * what it leaves to the walk: a cycle (which never ends), an object reached many times (copied again
 * each time: a "billion laughs" grows exponentially) or merely a large value.
 */
const SMALL = 256;
// Entries `smallCopy` may still copy in the value it is copying now.
let budget = 0;

/** The copy of `source` as `ownCopy` makes it, or `undefined` past `SMALL` entries. */
function smallCopy(source: object): Container | undefined {
  check?.(source);
  if (Array.isArray(source)) {
    const length = lengthOf(source);
    if ((budget -= length) < 0) return undefined;
    const copy = new Array<unknown>(length);
    for (let i = 0; i < length; i++) {
      const value = itemAt(source, i);
      if (typeof value !== "object" || value === null) copy[i] = value === undefined ? undefinedItem() : leaf(value);
      else if ((copy[i] = smallCopy(value)) === undefined) return undefined;
    }
    return copy;
  }
  const keys = Object.keys(source);
  if ((budget -= keys.length) < 0) return undefined;
  const copy: Record<string, unknown> = {};
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    let value: unknown = (source as Record<string, unknown>)[key];
    // An undefined entry is left out, as JSON leaves it out.
    if (value === undefined) continue;
    if (typeof value !== "object" || value === null) value = leaf(value);
    else if ((value = smallCopy(value)) === undefined) return undefined;
    // An own "__proto__" key (JSON.parse makes one) must stay a key, not set the copy's prototype.
    setOwn(copy, key, value);
  }
  return copy;
}

/**
 * A primitive as it is, but -0 as 0 (JSON has no negative zero: stored and read back it is 0, and the
 * history must read back equal, D-HISTORY-IDS); a function, a BigInt, a symbol or a non-finite number
 * is not JSON data.
 */
function leaf(value: unknown): unknown {
  switch (typeof value) {
    case "function":
      throw new NotJsonData("it holds a function");
    case "bigint":
      throw new NotJsonData("it holds a BigInt");
    case "symbol":
      throw new NotJsonData("it holds a symbol");
    case "number":
      if (!Number.isFinite(value)) throw new NotJsonData("it holds a number JSON cannot hold (NaN or ±Infinity)");
      if (value !== 0) return value;
      if (check !== undefined && Object.is(value, -0)) check(value);
      return 0;
    default:
      return value;
  }
}

/**
 * Makes the (empty) copy of `source`, reads every own enumerable entry of it once, and schedules
 * them: keys are placed now so the copy keeps the source's key order.
 */
function open(
  source: object,
  copies: Map<object, Container>,
  filling: Set<object>,
  stack: { source: unknown; target: Container | undefined; key: string | number }[],
): Container {
  check?.(source);
  stack.push({ source, target: undefined, key: 0 });
  filling.add(source);
  if (Array.isArray(source)) {
    const length = lengthOf(source);
    const copy: unknown[] = new Array<unknown>(length);
    copies.set(source, copy);
    // Each item checked as it is read: a sparse array fails at its first hole, not after its length.
    for (let i = length - 1; i >= 0; i--) stack.push({ source: itemAt(source, i), target: copy, key: i });
    return copy;
  }
  const copy: Record<string, unknown> = {};
  copies.set(source, copy);
  const keys = Object.keys(source);
  const values = keys.map((key) => (source as Record<string, unknown>)[key]);
  // An undefined entry is left out, as JSON leaves it out. An own "__proto__" key (JSON.parse makes
  // one) must stay a key, not set the copy's prototype.
  for (let i = 0; i < keys.length; i++) if (values[i] !== undefined) setOwn(copy, keys[i]!, undefined);
  for (let i = keys.length - 1; i >= 0; i--)
    if (values[i] !== undefined) stack.push({ source: values[i], target: copy, key: keys[i]! });
  return copy;
}
