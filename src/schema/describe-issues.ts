import { jsonType } from "../core/json";
import { toPointer } from "./json-pointer";
import { sourcePointer, type ShortenedLists } from "../core/source-pointer";

/** The parts of a zod v4 issue this package reads (never `input`, never `message`: see below). */
export interface IssueLike {
  readonly code: string;
  readonly path: readonly PropertyKey[];
  readonly expected?: unknown;
  readonly values?: readonly unknown[];
  readonly origin?: unknown;
  readonly format?: unknown;
  readonly minimum?: unknown;
  readonly maximum?: unknown;
  readonly discriminator?: unknown;
  readonly options?: readonly unknown[];
  /** invalid_union: the issues of each alternative, with paths relative to the union. */
  readonly errors?: readonly (readonly IssueLike[])[];
}

/** How many issues one error names; the rest are counted. */
const MAX_LISTED = 3;

/**
 * One sentence naming the JSON path of every rejected field and what the schema expected
 * (R-PROC-4). Built from the issue's structured fields rather than zod's message, because a
 * custom zod error map may print the rejected value, and a rejected value may be a delta or an
 * encrypted value (D-REDACT). The received value is described by its JSON kind only. A path into a
 * list enforcement shortened (`shortened`) names the element where the source had it (D-EVENT-INDEX).
 */
export function describeIssues(issues: readonly IssueLike[], input: unknown, shortened?: ShortenedLists): string {
  const precise = issues.flatMap(pinpoint);
  const listed = precise.slice(0, MAX_LISTED).map((issue) => describeIssue(issue, input, shortened));
  const more = precise.length > MAX_LISTED ? ` (+${precise.length - MAX_LISTED} more)` : "";
  return `the schema rejects ${listed.join("; ")}${more}`;
}

/**
 * A plain union (`string | ContentPart[]`) reports one issue at the union; the alternative that
 * got deepest into the value names the field actually at fault (`/content/0/text`, not `/content`).
 */
function pinpoint(issue: IssueLike): IssueLike[] {
  if (issue.code !== "invalid_union" || !issue.errors) return [issue];
  let deepest: readonly IssueLike[] | undefined;
  let depth = 0;
  for (const alternative of issue.errors) {
    for (const inner of alternative) {
      if (inner.path.length > depth) {
        depth = inner.path.length;
        deepest = alternative;
      }
    }
  }
  if (deepest === undefined) return [issue];
  return deepest.flatMap((inner) => pinpoint({ ...inner, path: [...issue.path, ...inner.path] }));
}

function describeIssue(issue: IssueLike, input: unknown, shortened: ShortenedLists | undefined): string {
  const segments = issue.path.map((p) => (typeof p === "number" ? p : String(p)));
  const pointer = sourcePointer(toPointer(segments), shortened) || "/";
  const received = valueAt(input, segments);
  return `${pointer} (${explain(issue, received)})`;
}

function explain(issue: IssueLike, received: Received): string {
  switch (issue.code) {
    case "invalid_type":
      return received.present
        ? `expected ${String(issue.expected)}, received ${kindOf(received.value)}`
        : `required field is missing, expected ${String(issue.expected)}`;
    case "invalid_value": {
      const expected = oneOf(issue.values ?? []);
      if (!received.present) return `required field is missing, expected ${expected}`;
      // A rejected string is not repeated (it may be anything); its kind is.
      return `expected ${expected}, received ${typeof received.value === "string" ? "another string" : kindOf(received.value)}`;
    }
    case "invalid_union":
      return typeof issue.discriminator === "string"
        ? `discriminator "${issue.discriminator}" must be ${oneOf(issue.options ?? [])}, received ${describeReceived(received)}`
        : `matches none of the allowed shapes, received ${describeReceived(received)}`;
    case "too_big":
      return `${String(issue.origin)} above the maximum ${String(issue.maximum)}`;
    case "too_small":
      return `${String(issue.origin)} below the minimum ${String(issue.minimum)}`;
    case "invalid_format":
      return `not in ${String(issue.format)} format`;
    case "custom":
      return `value not allowed here, received ${describeReceived(received)}`;
    default:
      return `${issue.code}, received ${describeReceived(received)}`;
  }
}

function oneOf(values: readonly unknown[]): string {
  const shown = values.map((v) => JSON.stringify(v) ?? String(v));
  return shown.length === 1 ? (shown[0] as string) : `one of ${shown.join(" | ")}`;
}

interface Received {
  readonly present: boolean;
  readonly value?: unknown;
}

function describeReceived(received: Received): string {
  return received.present ? kindOf(received.value) : "nothing (field missing)";
}

/** The JSON kind of a value: what an error may say about a rejected value. */
function kindOf(value: unknown): string {
  return typeof value === "number" && !Number.isInteger(value) ? "non-integer number" : jsonType(value);
}

/** The value at a path of the (already read once) input; safe on any shape. */
function valueAt(input: unknown, segments: readonly (string | number)[]): Received {
  let current: unknown = input;
  for (const segment of segments) {
    if (typeof current !== "object" || current === null) return { present: false };
    if (!Object.prototype.hasOwnProperty.call(current, segment)) return { present: false };
    current = (current as Record<string | number, unknown>)[segment];
  }
  return current === undefined ? { present: false } : { present: true, value: current };
}
