import { isPlainObject, jsonType } from "../core/json";

/**
 * Guarded reads of JSON this package wrote earlier and is given back (a stored history, a resume
 * snapshot). Such input may be truncated, hand-edited or from another version, so every read is
 * checked and a bad value is a `TypeError` naming the JSON pointer and what was expected — never
 * the value itself, which may be reasoning text or an encrypted value (D-REDACT).
 */
export class JsonShape {
  /**
   * @param context who reads, for the message: `parseHistory`, `resumeFrom`.
   * @param prefix the pointer of the part being read inside the whole document.
   */
  constructor(
    readonly context: string,
    readonly prefix = "",
  ) {}

  /** A reader of the part at `path` (its paths are reported from the document's root). */
  at(path: string): JsonShape {
    return new JsonShape(this.context, this.prefix + path);
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

  object(value: unknown, path: string): Record<string, unknown> {
    if (isPlainObject(value)) return value;
    return this.fail(path, `must be an object (got ${jsonType(value)})`);
  }

  array(value: unknown, path: string): readonly unknown[] {
    if (Array.isArray(value)) return value;
    return this.fail(path, `must be an array (got ${jsonType(value)})`);
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
    if (typeof value === "number" && Number.isSafeInteger(value) && value >= 0) return value;
    return this.fail(path, `must be a non-negative integer (got ${jsonType(value)})`);
  }

  oneOf<T extends string>(value: unknown, allowed: readonly T[], path: string): T {
    if (typeof value === "string" && (allowed as readonly string[]).includes(value)) return value as T;
    const got = typeof value === "string" ? "another string" : jsonType(value);
    return this.fail(path, `must be one of ${allowed.map((a) => JSON.stringify(a)).join(" | ")} (got ${got})`);
  }

  /** An instant: a safe integer (ms since the epoch by convention, R-EVT-3). */
  integer(value: unknown, path: string): number {
    if (typeof value === "number" && Number.isSafeInteger(value)) return value;
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
