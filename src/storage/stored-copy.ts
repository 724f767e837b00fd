import { NotJsonData } from "../core/json";
import { copyChecked } from "../history/own-copy";

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

function checkStored(value: unknown): void {
  if (value === undefined) throw new NotJsonData("an array item is undefined: JSON writes it as null");
  if (typeof value === "number") throw new NotJsonData("it holds -0: JSON writes it as 0");
  const source = value as object;
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
