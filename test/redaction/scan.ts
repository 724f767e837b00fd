import { inspect } from "node:util";
import { from } from "rxjs";
import { ReasoningProtocolError } from "../../src/core/errors";
import type { ReasoningWarning } from "../../src/core/types";
import { formatWarning } from "../../src/core/warnings";
import { toRunInputMessages } from "../../src/history/run-input";
import type { ReasoningHistory } from "../../src/history/types";
import { reasoningPipeline, type ReasoningPipelineOptions } from "../../src/pipeline/reasoning-pipeline";
import { DowncastError, downcastToThinking } from "../../src/downcast/downcast-thinking";
import { repairStream } from "../../src/repair/repair-stream";
import { saveHistory } from "../../src/storage/history-store";
import { InMemoryHistoryStore } from "../../src/storage/in-memory-store";
import type { OptInStage } from "./code-streams";

/**
 * The redaction scan (D-REDACT, R-REASON-25/26): runs streams through the facade, renders every
 * error and warning every way a program or a log might (message, String, JSON, util.inspect, the
 * console line) and looks for the stream's content in them.
 */

/** Every marker starts with this character, which no id, type, path or sentence of the package contains. */
export const MARK = "\u00a7";

/** Fields whose string values are content: deltas, reasoning and message text, values, titles, arguments, results. */
export const CONTENT_KEYS: ReadonlySet<string> = new Set([
  "delta",
  "encryptedValue",
  "title",
  "content",
  "text",
  "arguments",
  "message",
  "summary",
]);

/** Content shorter than this is not searched for: "ok" occurs in any sentence. Markers are longer. */
const MIN_SECRET = 8;

/** A place where content was found. */
export interface Leak {
  readonly stream: string;
  /** Which rendering of which error or warning. */
  readonly where: string;
  /** The content found (cut to 40 characters for the report). */
  readonly secret: string;
}

/** Everything one scanned run produced. */
export interface ScanResult {
  readonly errorCode?: string;
  readonly warningCodes: readonly string[];
  /** The thrown value, when it was not a ReasoningProtocolError (a TypeError would be a bug). */
  readonly foreignError?: unknown;
  readonly history: ReasoningHistory;
  /** Every rendering scanned. */
  readonly texts: readonly { where: string; text: string }[];
  readonly leaks: readonly Leak[];
}

/** The errors the package throws at a stream: a protocol violation, or a downgrade the older shapes cannot express. */
const isPackageError = (error: unknown): error is ReasoningProtocolError | DowncastError =>
  error instanceof ReasoningProtocolError || error instanceof DowncastError;

/** The renderings of an error that logs and programs see. `event` is meant for programs and is excluded. */
export function errorTexts(error: unknown): { where: string; text: string }[] {
  if (!isPackageError(error)) return [];
  const own: Record<string, unknown> = {};
  for (const key of Object.keys(error))
    if (key !== "event") own[key] = (error as unknown as Record<string, unknown>)[key];
  return [
    { where: "error.message", text: error.message },
    { where: "String(error)", text: String(error) },
    { where: "error.stack", text: error.stack ?? "" },
    { where: "JSON.stringify(error)", text: JSON.stringify(error) },
    { where: "enumerable properties", text: JSON.stringify(own) },
    { where: "util.inspect(error)", text: inspect(error, { depth: 5 }) },
    { where: "error.ids", text: JSON.stringify(error.ids) },
  ];
}

/** The renderings of a warning: every field, and the console line (D-WARN). */
export function warningTexts(warning: ReasoningWarning): { where: string; text: string }[] {
  return [
    { where: `warning ${warning.code} (JSON)`, text: JSON.stringify(warning) },
    { where: `warning ${warning.code} (console line)`, text: formatWarning(warning) },
  ];
}

/**
 * The content strings a stream carries: values of `CONTENT_KEYS` anywhere inside its events, and
 * every string holding a `MARK`. Iterative, so hostile nesting is fine.
 */
export function secretsOf(values: readonly unknown[]): Set<string> {
  const secrets = new Set<string>();
  const stack: { value: unknown; key: string }[] = values.map((value) => ({ value, key: "" }));
  while (stack.length > 0) {
    const { value, key } = stack.pop()!;
    if (typeof value === "string") {
      if ((CONTENT_KEYS.has(key) && value.length >= MIN_SECRET) || value.includes(MARK)) secrets.add(value);
    } else if (Array.isArray(value)) {
      for (const item of value) stack.push({ value: item, key });
    } else if (typeof value === "object" && value !== null && !isUnreadable(value)) {
      for (const [k, v] of Object.entries(value)) stack.push({ value: v, key: k });
    }
  }
  return secrets;
}

/** Proxies and throwing getters are not walked (they are in the hostile streams on purpose). */
function isUnreadable(value: object): boolean {
  try {
    Object.entries(value);
    return false;
  } catch {
    return true;
  }
}

/** Where any of `secrets`, or the marker character, occurs in `texts`. */
export function leaksIn(
  stream: string,
  texts: readonly { where: string; text: string }[],
  secrets: ReadonlySet<string>,
): Leak[] {
  const leaks: Leak[] = [];
  for (const { where, text } of texts) {
    if (text.includes(MARK))
      leaks.push({ stream, where, secret: text.slice(text.indexOf(MARK), text.indexOf(MARK) + 40) });
    for (const secret of secrets) {
      if (secret.length >= MIN_SECRET && text.includes(secret))
        leaks.push({ stream, where, secret: secret.slice(0, 40) });
    }
  }
  return leaks;
}

/**
 * Runs `events` through the facade (and `toRunInputMessages` for another producer, which reports
 * withheld values), and scans every error and warning for `secrets` (default: `secretsOf(events)`).
 */
export function scanStream(
  stream: string,
  events: readonly unknown[],
  options: ReasoningPipelineOptions = {},
  secrets: ReadonlySet<string> = secretsOf([...events, ...(options.initialMessages ?? [])]),
): ScanResult {
  const warnings: ReasoningWarning[] = [];
  const pipeline = reasoningPipeline(from(events), {
    producer: "scanned",
    onWarning: (w) => warnings.push(w),
    ...options,
  });
  let failure: { error: unknown } | undefined;
  pipeline.events$.subscribe({ error: (error: unknown) => (failure = { error }) });
  const history = pipeline.history;
  toRunInputMessages(history, { producer: "someone-else", onWarning: (w) => warnings.push(w) });

  return scanned(stream, warnings, failure, history, secrets);
}

/** Renders and searches what one run produced. */
function scanned(
  stream: string,
  warnings: readonly ReasoningWarning[],
  failure: { error: unknown } | undefined,
  history: ReasoningHistory,
  secrets: ReadonlySet<string>,
): ScanResult {
  const texts = warnings.flatMap(warningTexts);
  const error = failure?.error;
  texts.push(...errorTexts(error));
  const leaks = leaksIn(stream, texts, secrets);
  if (isPackageError(error) && Object.getOwnPropertyDescriptor(error, "event")?.enumerable !== false) {
    leaks.push({ stream, where: "error.event is enumerable", secret: "" });
  }
  const result: ScanResult = { warningCodes: warnings.map((w) => w.code), history, texts, leaks };
  if (error === undefined) return result;
  if (isPackageError(error)) return { ...result, errorCode: error.code };
  return { ...result, foreignError: error };
}

/**
 * Runs `events` through an opt-in stage placed as users place it, together with the strict
 * pipeline, and scans the errors and warnings of both: `repairStream` in front of the pipeline,
 * `downcastToThinking` after it, `saveHistory` of its history into a store that cannot keep values.
 */
export async function scanOptInStream(
  stream: string,
  stage: OptInStage,
  events: readonly unknown[],
  secrets: ReadonlySet<string> = secretsOf(events),
): Promise<ScanResult> {
  const warnings: ReasoningWarning[] = [];
  const options = { producer: "scanned", onWarning: (w: ReasoningWarning) => warnings.push(w) };
  const source = stage === "repairStream" ? from(events).pipe(repairStream(options)) : from(events);
  const pipeline = reasoningPipeline(source, options);
  let failure: { error: unknown } | undefined;
  const output = stage === "downcastToThinking" ? pipeline.events$.pipe(downcastToThinking(options)) : pipeline.events$;
  output.subscribe({ error: (error: unknown) => (failure = { error }) });
  const history = pipeline.history;
  if (stage === "saveHistory") {
    try {
      await saveHistory(new InMemoryHistoryStore({ encryptedValues: false }), "t1", history, options);
    } catch (error) {
      failure ??= { error };
    }
  }
  return scanned(stream, warnings, failure, history, secrets);
}

/**
 * The same stream with every content string replaced by a distinct marker (equal strings by the same
 * marker, `""` kept), so that even short content is searchable. Ids, types and keys are untouched.
 */
export function withMarkers(events: readonly unknown[], prefix: string): unknown[] {
  const markers = new Map<string, string>();
  const mark = (text: string): string => {
    if (text === "") return text;
    let marker = markers.get(text);
    if (marker === undefined) {
      marker = `${MARK}${prefix}-${markers.size.toString(36)}-Zk8Qw`;
      markers.set(text, marker);
    }
    return marker;
  };
  const rewrite = (value: unknown, key: string): unknown => {
    if (typeof value === "string") return CONTENT_KEYS.has(key) ? mark(value) : value;
    if (Array.isArray(value)) return value.map((item) => rewrite(item, key));
    if (typeof value !== "object" || value === null) return value;
    const copy: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      Object.defineProperty(copy, k, { value: rewrite(v, k), enumerable: true, writable: true, configurable: true });
    }
    return copy;
  };
  return events.map((event) => rewrite(event, ""));
}
