/**
 * The package's own copy of a JSON value taken from an event (D-NO-ALIAS): mutating an event after
 * delivery must not change a published history. Primitives are shared, so a delta is never copied.
 *
 * The input is hostile (docs/security.md): it is read here, once, and whatever goes wrong (a
 * throwing getter or trap, a revoked proxy, a cycle, a function) is `NotJsonData`, which the caller
 * makes a MALFORMED_EVENT naming the field. The walk is iterative (no stack for deep nesting) and
 * copies an object reached twice once (a "billion laughs" of references stays linear).
 *
 * The copy holds what JSON can carry, so it survives `exportState()` and storage: as `JSON.stringify`
 * does, an `undefined` object entry is left out and an array's becomes `null`; a BigInt, a symbol,
 * NaN or ±Infinity is refused.
 */

/** Why a value is not JSON data (for an error detail: kinds only, never a value, D-REDACT). */
export class NotJsonData extends Error {
  override readonly name = "NotJsonData";
}

type Container = Record<string, unknown> | unknown[];

/** A copy of `value` that shares no object with it. Throws (`NotJsonData`, or the input's own error) when it cannot be read. */
export function ownCopy<T>(value: T): T {
  if (typeof value !== "object" || value === null) return leaf(value) as T;
  if (!Array.isArray(value)) {
    // Most metadata is one flat object: copied without the walk's bookkeeping.
    const flat = flatCopy(value);
    if (flat !== undefined) return flat as T;
  }
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
      (target as Record<string | number, unknown>)[key] = source === undefined ? null : leaf(source);
      continue;
    }
    if (filling.has(source)) throw new NotJsonData("it contains a cycle");
    (target as Record<string | number, unknown>)[key] = copies.get(source) ?? open(source, copies, filling, stack);
  }
  return root as T;
}

/** A copy of an object whose values are all primitives, or `undefined` when one is an object. */
function flatCopy(source: object): Record<string, unknown> | undefined {
  const keys = Object.keys(source);
  const copy: Record<string, unknown> = {};
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    const value = (source as Record<string, unknown>)[key];
    if (typeof value === "object" && value !== null) return undefined;
    if (value === undefined) continue;
    if (key === "__proto__")
      Object.defineProperty(copy, key, { value: leaf(value), writable: true, enumerable: true, configurable: true });
    else copy[key] = leaf(value);
  }
  return copy;
}

/** A primitive as it is; a function, a BigInt, a symbol or a non-finite number is not JSON data. */
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
      return value;
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
  stack.push({ source, target: undefined, key: 0 });
  filling.add(source);
  if (Array.isArray(source)) {
    const length = source.length;
    const copy: unknown[] = new Array<unknown>(length);
    copies.set(source, copy);
    for (let i = length - 1; i >= 0; i--) stack.push({ source: source[i], target: copy, key: i });
    return copy;
  }
  const copy: Record<string, unknown> = {};
  copies.set(source, copy);
  const allKeys = Object.keys(source);
  const allValues = allKeys.map((key) => (source as Record<string, unknown>)[key]);
  // An undefined entry is left out, as JSON leaves it out.
  const keys = allKeys.filter((_, i) => allValues[i] !== undefined);
  const values = allValues.filter((value) => value !== undefined);
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    // An own "__proto__" key (JSON.parse makes one) must stay a key, not set the copy's prototype.
    if (key === "__proto__")
      Object.defineProperty(copy, key, { value: undefined, writable: true, enumerable: true, configurable: true });
    else copy[key] = undefined;
  }
  for (let i = keys.length - 1; i >= 0; i--) stack.push({ source: values[i], target: copy, key: keys[i]! });
  return copy;
}
