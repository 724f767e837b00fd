import { NotJsonData } from "../core/json";
import { copyChecked, ownCopy } from "../history/own-copy";

/**
 * `ownCopy(value)` for a writer of the stored form (D-HISTORY-IDS): it also refuses, as `NotJsonData`,
 * what the copy would not keep as it is, so that `value` written as JSON reads back equal (toEqual) to
 * it — an object other than a plain object or an array (a `Date`, a `Map`, a boxed primitive, a typed
 * array: JSON writes it otherwise), an `undefined` array item (written as `null`), -0 (written as 0), a
 * symbol-keyed entry, or an array's entry that is not an item (both left out). O(value), as the writer is.
 */
export function storedCopy<T>(value: T): T {
  return copyChecked(value, checkStored);
}

/**
 * The copy a reader of the stored form (`parseHistory`, `resumeFrom`) makes of the document `input`'s
 * parts, as strict as the writers (D-HISTORY-IDS, D-PATHS). A document given as a value (a record from
 * a database, a structured clone, one built in code) may hold what JSON would write otherwise (a
 * `Date`): `storedCopy` refuses it, naming the pointer, where `ownCopy` would read a `Date` as `{}`.
 * Text needs no such check: `JSON.parse` makes nothing but JSON data (its `-0` reads as 0, as written).
 */
export function readerCopy(input: unknown): <T>(value: T) => T {
  return typeof input === "string" ? ownCopy : storedCopy;
}

function checkStored(value: unknown): void {
  if (value === undefined) throw new NotJsonData("an array item is undefined: JSON writes it as null");
  if (typeof value === "number") throw new NotJsonData("it holds -0: JSON writes it as 0");
  checkStoredObject(value as object);
}

/**
 * Throws `NotJsonData` when `source` itself (not what it holds) is an object JSON would write
 * otherwise than as it is: `storedCopy`'s check of each object it copies. Reads its keys, no value.
 */
export function checkStoredObject(source: object): void {
  if (Array.isArray(source)) {
    // Fewer keys than items is a hole, which the copy refuses as such (`itemAt`).
    if (Object.keys(source).length > source.length)
      throw new NotJsonData("an array with an entry that is not an item: JSON leaves it out");
  } else if (Object.prototype.toString.call(source) !== "[object Object]")
    throw new NotJsonData(
      "it holds an object that is not a plain object (a Date, a Map, a boxed primitive…): JSON writes it otherwise",
    );
  if (Object.getOwnPropertySymbols(source).some((key) => Object.prototype.propertyIsEnumerable.call(source, key)))
    throw new NotJsonData("it holds a symbol-keyed entry: JSON leaves it out");
}
