import { isInstant, isPlainObject, itemAt, jsonType, lengthOf, NotJsonData, setOwn } from "../core/json";
import { ownCopy } from "../history/own-copy";
import { toPointer } from "../schema/json-pointer";

/**
 * Guarded reads of JSON this package wrote earlier and is given back (a stored history, a resume
 * snapshot). Such input may be truncated, hand-edited or from another version, so every read is
 * checked and a bad value is a `TypeError` naming the JSON pointer and what was expected — never
 * the value itself, which may be reasoning text or an encrypted value (D-REDACT).
 *
 * A document given as an object (not text) is the caller's: any read of it may throw (a getter, a
 * revoked proxy), and the caller may change it later. So `object`, `array` and `json` read each part
 * once, in a guard, into a copy of the package's own: a throw is a `TypeError` naming the pointer, and
 * nothing read shares a mutable object with the document.
 */
export class JsonShape {
  /**
   * @param context who reads, for the message: `parseHistory`, `resumeFrom`.
   * @param prefix the pointer of the part being read inside the whole document.
   * @param copy how `json` copies a value: `ownCopy`, or a writer's `storedCopy`, which also refuses
   *   what would not read back as it is.
   */
  constructor(
    readonly context: string,
    readonly prefix = "",
    private readonly copy: <T>(value: T) => T = ownCopy,
  ) {}

  /** A reader of the part at `path` (its paths are reported from the document's root). */
  at(path: string): JsonShape {
    return new JsonShape(this.context, this.prefix + path, this.copy);
  }

  fail(path: string, problem: string): never {
    const pointer = this.prefix + path;
    throw new TypeError(`agui-reasoning: ${this.context}: ${pointer === "" ? "/" : pointer} ${problem}`);
  }

  /** `value` itself, or the JSON value it spells when it is text. */
  parsed(value: unknown): unknown {
    if (typeof value !== "string") return value;
    try {
      return JSON.parse(value);
    } catch {
      // The SyntaxError's own message quotes the text around the fault: content (D-REDACT).
      return this.fail("", `is not valid JSON text (${value.length} characters)`);
    }
  }

  /** A copy of the object's own entries (one level). */
  object(value: unknown, path: string): Record<string, unknown> {
    const keys = this.guarded(path, () => (isPlainObject(value) ? Object.keys(value) : undefined));
    if (keys === undefined) return this.fail(path, `must be an object (got ${jsonType(value)})`);
    const copy: Record<string, unknown> = {};
    let key = "";
    try {
      for (key of keys) setOwn(copy, key, (value as Record<string, unknown>)[key]);
    } catch (error) {
      this.unreadable(path + toPointer([key]), error);
    }
    return copy;
  }

  /** A copy of the array's elements (one level; a hole is not JSON data: `itemAt`). */
  array(value: unknown, path: string): readonly unknown[] {
    const length = this.guarded(path, () => (Array.isArray(value) ? lengthOf(value) : undefined));
    if (length === undefined) return this.fail(path, `must be an array (got ${jsonType(value)})`);
    const copy = new Array<unknown>(length);
    let i = 0;
    try {
      for (; i < length; i++) copy[i] = itemAt(value as readonly unknown[], i);
    } catch (error) {
      this.unreadable(`${path}/${i}`, error);
    }
    return copy;
  }

  /** A deep copy of a JSON value (`ownCopy`, or the copy this reader was made with), e.g. a message. */
  json(value: unknown, path: string): unknown {
    return this.guarded(path, () => this.copy(value));
  }

  /** `read()`, or a `TypeError` at `path` when it throws (`NotJsonData` in its words, any other error in none). */
  guarded<T>(path: string, read: () => T): T {
    try {
      return read();
    } catch (error) {
      return this.unreadable(path, error);
    }
  }

  // Never the thrown error's message: a getter's error may quote content (D-REDACT).
  private unreadable(path: string, error: unknown): never {
    const why = error instanceof NotJsonData ? error.message : "a read of it threw";
    return this.fail(path, `cannot be read as JSON data (${why})`);
  }

  string(value: unknown, path: string): string {
    if (typeof value === "string") return value;
    return this.fail(path, `must be a string (got ${jsonType(value)})`);
  }

  /** A string, or `null` standing for "absent" (JSON has no `undefined`). */
  stringOrNull(value: unknown, path: string): string | undefined {
    if (value === null) return undefined;
    if (typeof value === "string") return value;
    return this.fail(path, `must be a string or null (got ${jsonType(value)})`);
  }

  boolean(value: unknown, path: string): boolean {
    if (typeof value === "boolean") return value;
    return this.fail(path, `must be a boolean (got ${jsonType(value)})`);
  }

  /** A count or position: a non-negative safe integer. */
  count(value: unknown, path: string): number {
    if (isInstant(value) && value >= 0) return value;
    return this.fail(path, `must be a non-negative integer (got ${jsonType(value)})`);
  }

  oneOf<T extends string>(value: unknown, allowed: readonly T[], path: string): T {
    if (typeof value === "string" && (allowed as readonly string[]).includes(value)) return value as T;
    const got = typeof value === "string" ? "another string" : jsonType(value);
    return this.fail(path, `must be one of ${allowed.map((a) => JSON.stringify(a)).join(" | ")} (got ${got})`);
  }

  /** An instant: a safe integer (ms since the epoch by convention, R-EVT-3). */
  integer(value: unknown, path: string): number {
    if (isInstant(value)) return value;
    return this.fail(path, `must be an integer (got ${jsonType(value)})`);
  }

  /**
   * The format tag and version every document of this package starts with; `oldest` is the earliest
   * version still read (the caller reads its shape). Returns the version found.
   */
  header(doc: Record<string, unknown>, format: string, version: number, oldest = version): number {
    if (doc.format !== format)
      this.fail("/format", `must be ${JSON.stringify(format)}: this is not a document this reader understands`);
    const got = doc.version;
    if (typeof got === "number" && Number.isInteger(got) && got > version) {
      this.fail("/version", `is ${got}, newer than this package reads (${version}); upgrade agui-reasoning`);
    }
    if (typeof got === "number" && Number.isInteger(got) && got >= oldest) return got;
    const allowed = oldest === version ? `${version}` : `${oldest}…${version}`;
    return this.fail("/version", `must be ${allowed} (got ${jsonType(got)})`);
  }
}
