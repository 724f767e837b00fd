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

/**
 * The most items a list the package reads may hold: 2^24 (16,777,216). A proxy of an array may claim any
 * length (2³²−1) and answer every read with a plausible item: a loop over the claimed length would then
 * run for hours, and so would one over a length that grows as it is read. 2^24 is the most entries a V8
 * `Map` or `Set` holds: the copy a value is kept as (`ownCopy`) keeps one per object it copies, so a longer
 * list of objects could not be kept anyway; and 2^24 messages of even 100 bytes each are over 1.6 GB, more
 * than any conversation held in memory. A list within the bound costs what a real one of its length costs
 * (seconds at the bound); past it, no item is read (docs/security.md).
 */
export const MAX_LIST_LENGTH = 2 ** 24;

/**
 * `list.length`, read once, when it is an array length within `MAX_LIST_LENGTH`; else why the list is not
 * JSON data. A sparse array past the bound (a structured clone keeps one, claiming 2³²−1 slots) is wrong
 * for its holes: its length is given as one past its first hole, for the reader to name that slot
 * (`itemAt`), as it names the hole of a shorter one; one with no hole within the bound is past it.
 */
function readLength(list: readonly unknown[]): number | string {
  const length = list.length;
  if (!Number.isInteger(length) || length < 0 || length >= 2 ** 32)
    return "an array whose length is not an array length";
  if (length <= MAX_LIST_LENGTH) return length;
  if (!(length - 1 in list)) for (let i = 0; i < MAX_LIST_LENGTH; i++) if (!(i in list)) return i + 1;
  return `a list of ${length} items, past the ${MAX_LIST_LENGTH} a list may hold`;
}

/**
 * `list.length`, read once: every loop over a list of the caller's reads its length here and reads no
 * more items than that (a proxy may answer each read of `length` otherwise). A length that is no array
 * length, or past `MAX_LIST_LENGTH`, is not JSON data.
 */
export function lengthOf(list: readonly unknown[]): number {
  const length = readLength(list);
  if (typeof length === "number") return length;
  throw new NotJsonData(length);
}

/**
 * A copy of `list`'s items before its first hole (all of them when it has none), read from one read of its
 * length: bookkeeping that leaves judging to enforcement (a sparse array's claimed 2³²−1 slots are read to
 * the first hole). A list with no array length, or one past `MAX_LIST_LENGTH`, gives none.
 */
export function presentItems(list: readonly unknown[]): unknown[] {
  const claimed = readLength(list);
  const length = typeof claimed === "number" ? claimed : 0;
  const items: unknown[] = [];
  for (let i = 0; i < length; i++) {
    const item = list[i];
    if (item === undefined && !(i in list)) break;
    items.push(item);
  }
  return items;
}

/** Whether `list` is JSON data's kind of list: an array length within `MAX_LIST_LENGTH` (read once) and no hole. */
export function isDenseList(list: readonly unknown[]): boolean {
  const length = readLength(list);
  if (typeof length !== "number") return false;
  for (let i = 0; i < length; i++) if (list[i] === undefined && !(i in list)) return false;
  return true;
}

/** A copy of `list`, its length read once (`lengthOf`), each item once (`itemAt`: a hole is not JSON data). */
export function listCopy(list: readonly unknown[]): unknown[] {
  return Array.from({ length: lengthOf(list) }, (_, i) => itemAt(list, i));
}
