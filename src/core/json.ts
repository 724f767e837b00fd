/** Assigns an own data property, also for the key `__proto__` (which plain assignment would treat as the prototype). */
export function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === "__proto__")
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}

/** A safe integer: what an event's `timestamp` and every instant kept of one must be (R-EVT-3, D-DURATION). */
export function isInstant(value: unknown): value is number {
  return Number.isSafeInteger(value);
}

/** A JSON object (not `null`, not an array): the shape every event, message and metadata value must have. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * A property of raw input, or `undefined` when it is not an object or the property cannot be read
 * (a throwing getter, a revoked proxy): such input is not JSON data, and enforcement rejects it.
 */
export function rawField(raw: unknown, key: PropertyKey): unknown {
  try {
    return typeof raw === "object" && raw !== null ? (raw as Record<PropertyKey, unknown>)[key] : undefined;
  } catch {
    return undefined;
  }
}

/** `rawField(event, "type")`. */
export function rawType(event: unknown): unknown {
  return rawField(event, "type");
}

/** The JSON type of a value, for error details (never the value itself). */
export function jsonType(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  return typeof value;
}

/** UTF-8 byte length of a string: warnings may state sizes, never contents (D-REDACT). */
export function byteLength(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit < 0x80) bytes += 1;
    else if (unit < 0x800) bytes += 2;
    else if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        bytes += 4;
        i++;
      } else bytes += 3;
    } else bytes += 3;
  }
  return bytes;
}

/** A piece of output text on `writeJson`'s work stack (anything else there is a value still to write). */
class Written {
  constructor(readonly text: string) {}
}

/**
 * `JSON.stringify(value)` for JSON data as `ownCopy` makes it (plain objects and arrays, no
 * `undefined`, no `toJSON`), without recursion: for values nested deeper than `JSON.stringify`'s
 * stack reaches (a few thousand levels), which the pipeline carries (docs/security.md).
 */
export function writeJson(value: unknown): string {
  let out = "";
  const work: unknown[] = [value];
  while (work.length > 0) {
    const next = work.pop();
    if (next instanceof Written) out += next.text;
    else if (Array.isArray(next)) {
      out += "[";
      work.push(new Written("]"));
      for (let i = next.length - 1; i >= 0; i--) {
        work.push(next[i]);
        if (i > 0) work.push(new Written(","));
      }
    } else if (isPlainObject(next)) {
      out += "{";
      work.push(new Written("}"));
      const keys = Object.keys(next);
      for (let i = keys.length - 1; i >= 0; i--) {
        work.push(next[keys[i]!]);
        work.push(new Written(`${i > 0 ? "," : ""}${JSON.stringify(keys[i])}:`));
      }
    } else out += JSON.stringify(next);
  }
  return out;
}

/** Why a value is not JSON data (for an error detail: kinds only, never a value, D-REDACT). */
export class NotJsonData extends Error {
  override readonly name = "NotJsonData";
}

/** Why a list with a hole is not JSON data (`itemAt`'s `NotJsonData`, and a check that names the slot). */
export const HOLE = "a sparse array: JSON has no holes";

/**
 * `source[i]`, where a hole is not JSON data: JSON text has none, and a sparse array claims a length
 * of 2³²−1 for nothing (a structured clone keeps one), which a copy slot by slot would pay for.
 */
export function itemAt(source: readonly unknown[], i: number): unknown {
  const value = source[i];
  if (value === undefined && !(i in source)) throw new NotJsonData(HOLE);
  return value;
}

/** `list.length`, which a proxy may make anything: one that is no array length is not JSON data. */
export function lengthOf(list: readonly unknown[]): number {
  const length = list.length;
  if (Number.isInteger(length) && length >= 0 && length < 2 ** 32) return length;
  throw new NotJsonData("an array whose length is not an array length");
}

/** `list`, or its items before its first hole, where a loop over a sparse array's claimed length must stop. */
export function presentItems(list: readonly unknown[]): readonly unknown[] {
  for (let i = 0; i < list.length; i++) if (list[i] === undefined && !(i in list)) return list.slice(0, i);
  return list;
}
