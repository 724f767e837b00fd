import type { Message } from "@ag-ui/core";
import { earlierCopies, KindMap, messageIds, ownIssuers, repeatedId, wrongToolMessage } from "../history/message-key";
import { issuerRecord } from "../history/issuers";
import { MessageSchema } from "@ag-ui/core/schemas";
import { quotedId } from "../core/errors";
import { describeIssues } from "../schema/describe-issues";
import type { IncompleteItem, ReasoningDuration, ReasoningHistory, ValueIssuer } from "../history/types";
import { JsonShape } from "./json-shape";
import { checkStoredObject, readerCopy, storedCopy } from "./stored-copy";
import { setOwn, writeJson } from "../core/json";
import { checkHistory } from "../core/arguments";
import { toPointer } from "../schema/json-pointer";

/** The format tag of a stored history. */
export const HISTORY_FORMAT = "agui-reasoning/history";
/**
 * The version this package writes. It reads this one and every earlier one (version 1 had no
 * `durations`: it loads with none); a newer version is refused, never guessed at.
 */
export const HISTORY_FORMAT_VERSION = 2;
/** The earliest version `parseHistory` still reads. */
const OLDEST_READ = 1;

/** A `ValueIssuer` in JSON: "no configured producer" is `null`, since JSON has no `undefined`. */
export interface StoredIssuer {
  readonly subtype: ValueIssuer["subtype"];
  readonly entityId: string;
  readonly issuer: string | null;
  /** Present (`true`) on the record of a value on a tool message (`ValueIssuer.toolMessage`). */
  readonly toolMessage?: true;
}

/**
 * The stored form of a `ReasoningHistory`: the same three lists, tagged and versioned. Lossless:
 * messages keep every field, reasoning messages and `encryptedValue`s included (R-REASON-17);
 * issuers stay beside the messages (D-ISSUER); the incomplete list keeps why each item is open; the
 * durations keep when each reasoning message and span started and ended (D-DURATION).
 */
export interface StoredHistory {
  readonly format: typeof HISTORY_FORMAT;
  readonly version: typeof HISTORY_FORMAT_VERSION;
  readonly messages: readonly Message[];
  readonly incomplete: readonly IncompleteItem[];
  readonly issuers: readonly StoredIssuer[];
  /** Since version 2 (D-DURATION). */
  readonly durations: readonly ReasoningDuration[];
}

/**
 * The stored form of `history`, as a JSON value (embed it in a document of your own, or use
 * `serializeHistory` for text): what `parseHistory` reads back equal to `history` (D-HISTORY-IDS).
 * Its messages are the package's own copies, read once (a getter is not read again). A history that
 * would not read back so is refused here, while the caller still holds it: a `TypeError` naming the
 * JSON pointer in the words `parseHistory` uses (never the content, D-REDACT) — what `parseHistory`
 * refuses, and what JSON would write otherwise (a `Date`, an `undefined` array item, -0, a field the
 * stored form does not keep).
 */
export function historyToJSON(history: ReasoningHistory): StoredHistory {
  return storedForm(readBack(history, "historyToJSON"));
}

/** The lists of a history, as its stored form holds them. */
const LISTS = ["messages", "incomplete", "issuers", "durations"];

const NOT_KEPT = "is not kept by the stored form (it would read back otherwise)";

/**
 * What `parseHistory` reads back from `history`'s stored form (`historyToJSON` before the stored form is
 * made), or a `TypeError` for `caller`, which a fault names.
 */
export function readBack(history: ReasoningHistory, caller: string): ReasoningHistory {
  // What every other way in refuses, the stored form refuses too (a hole JSON.stringify writes as null).
  checkHistory(history, caller);
  // Every value copied so that it reads back as it is (storedCopy), or refused.
  const shape = new JsonShape(caller, "", storedCopy);
  const h = shape.object(history, "");
  for (const key of Object.keys(h))
    if (!LISTS.includes(key) && h[key] !== undefined) shape.fail(toPointer([key]), NOT_KEPT);
  // Each entry read once, into a copy JSON writes as it is (a fault named by its field, as the reader
  // names it); the messages by the reader.
  const entries = (list: string): Record<string, unknown>[] =>
    shape.array(h[list] ?? [], `/${list}`).map((entry, i) => entryOf(shape, entry, `/${list}/${i}`));
  const incomplete = entries("incomplete");
  const issuers = entries("issuers");
  // A history built before durations existed (no such list) is stored with none.
  const durations = entries("durations");
  // What is written is what the reader makes of it, refused as it would be refused when read back.
  const read = readParts(
    shape,
    {
      messages: h.messages,
      incomplete,
      // "No configured producer" is `null` in JSON (storedIssuer).
      issuers: issuers.map((r) => ({ ...r, issuer: r.issuer === undefined ? null : r.issuer })),
      durations,
    },
    HISTORY_FORMAT_VERSION,
  );
  // The reader keeps the fields it knows: any other, or one it would read otherwise, is lost.
  keptAsGiven(shape, "incomplete", incomplete, read.incomplete);
  // A record in an earlier release's form is stored in today's, as every way in reads it (D-HISTORY-IDS).
  keptAsGiven(shape, "issuers", ownIssuers(read.messages, issuers as unknown as ValueIssuer[]), read.issuers);
  keptAsGiven(shape, "durations", durations, read.durations);
  return read;
}

/** The stored form of a history `readBack` read. */
function storedForm(read: ReasoningHistory): StoredHistory {
  return {
    format: HISTORY_FORMAT,
    version: HISTORY_FORMAT_VERSION,
    messages: read.messages,
    incomplete: read.incomplete,
    issuers: read.issuers.map(storedIssuer),
    durations: read.durations,
  };
}

/** Fails at the first field of `given` (copies of a list's entries) that `read` does not hold as it is. */
function keptAsGiven(shape: JsonShape, list: string, given: readonly object[], read: readonly object[]): void {
  given.forEach((entry, i) => {
    const g = entry as Record<string, unknown>;
    const r = read[i] as Record<string, unknown> | undefined;
    if (r === undefined) return shape.fail(`/${list}/${i}`, NOT_KEPT);
    for (const key of new Set([...Object.keys(g), ...Object.keys(r)]))
      if (!Object.is(g[key], r[key])) shape.fail(`/${list}/${i}${toPointer([key])}`, NOT_KEPT);
  });
  if (read.length !== given.length) shape.fail(`/${list}`, NOT_KEPT);
}

/** An issuer record as stored: `null` for an issuer none was configured for (JSON has no `undefined`). */
export function storedIssuer(r: ValueIssuer): StoredIssuer {
  const stored = { subtype: r.subtype, entityId: r.entityId, issuer: r.issuer ?? null };
  return r.toolMessage === true ? { ...stored, toolMessage: true } : stored;
}

/** `history` as JSON text: `{"format":"agui-reasoning/history","version":2,…}`. Refuses what `historyToJSON` refuses. */
export function serializeHistory(history: ReasoningHistory): string {
  // The package's own copies, plain JSON data: JSON.stringify fails only on values nested deeper than
  // it recurses, which the pipeline carries (D-HISTORY-IDS): those are written without recursion.
  const doc = storedForm(readBack(history, "serializeHistory"));
  try {
    return JSON.stringify(doc);
  } catch {
    return writeJson(doc);
  }
}

/**
 * The history stored by `serializeHistory` (JSON text) or `historyToJSON` (a JSON value), checked:
 * the format tag and version, every message against the AG-UI 1.0 `MessageSchema`, message ids
 * unique (R-EVT-8), the incomplete list and the issuer records (one per entity, D-ISSUER). Anything
 * else is a `TypeError` naming the JSON pointer at fault, never the content found there (D-REDACT).
 * A value (not text) is read as strictly as the writers write: what they refuse — a `Date`, a `Map`,
 * an `undefined` array item, -0, a symbol-keyed entry… — is refused here too, in their words.
 */
// eslint-disable-next-line @typescript-eslint/no-redundant-type-constituents -- names the usual input; any value is checked
export function parseHistory(json: string | unknown): ReasoningHistory {
  return readStoredHistory(json, new JsonShape("parseHistory", "", readerCopy(json)), "");
}

/**
 * `parseHistory` for a stored history nested at `path` of a larger document read by `shape`, which
 * copies its parts as strictly as the whole document needs (`readerCopy` of it).
 */
export function readStoredHistory(json: unknown, shape: JsonShape, path: string): ReasoningHistory {
  const nested = shape.at(path);
  const doc = nested.object(nested.parsed(json), "");
  const version = nested.header(doc, HISTORY_FORMAT, HISTORY_FORMAT_VERSION, OLDEST_READ);
  return readParts(nested, doc, version);
}

/** The lists of a stored history `doc` of `version`, read by `shape` (a writer's copies with `storedCopy`). */
function readParts(shape: JsonShape, doc: Record<string, unknown>, version: number): ReasoningHistory {
  const messages = readMessages(shape, doc.messages);
  return {
    messages,
    incomplete: readIncomplete(shape, doc.incomplete),
    issuers: readIssuers(shape, doc.issuers, messages),
    durations: version < 2 ? [] : readDurations(shape, doc.durations),
  };
}

function readMessages(shape: JsonShape, value: unknown): Message[] {
  const messages = shape.array(value, "/messages");
  const earlier = earlierCopies();
  return messages.map((raw, i) => {
    const message = shape.json(raw, `/messages/${i}`);
    const checked = MessageSchema.safeParse(message);
    if (!checked.success) {
      shape.fail(`/messages/${i}`, `is not an AG-UI 1.0 message: ${describeIssues(checked.error.issues, message)}`);
    }
    // A tool message may share its id with a message of another role (D-TOOL-RESULT-ID): a message is
    // its id together with whether it is a tool message (D-HISTORY-IDS).
    if (earlier(message as Message, i) !== undefined)
      shape.fail(
        `/messages/${i}/id`,
        `repeats ${repeatedId(message as Message)}: a history holds each message once (R-EVT-8)`,
      );
    // Our copy, not zod's: the schema is loose, and storage must not drop a field.
    return message as Message;
  });
}

/**
 * An entry of a list (an incomplete item, an issuer record, a duration) read once, into a copy: each
 * field copied as `shape` copies a value, a fault named at the field; the entry itself refused as a
 * writer's copy refuses an object (a `Date`, a symbol-keyed field: never found in text).
 */
function entryOf(shape: JsonShape, value: unknown, path: string): Record<string, unknown> {
  const entry = shape.object(value, path);
  shape.guarded(path, () => checkStoredObject(value as object));
  for (const key of Object.keys(entry)) setOwn(entry, key, shape.json(entry[key], path + toPointer([key])));
  return entry;
}

/** Reads a list's entries in order: whether this kind and id came before (a list names each once). */
function repeatsOf(): (kind: string, id: string) => boolean {
  const seen = new KindMap<true>();
  return (kind, id) => seen.has(kind, id) || !seen.set(kind, id, true);
}

const KINDS = ["message", "tool-call"] as const;
const REASONS = ["open", "abandoned", "truncated"] as const;

function readIncomplete(shape: JsonShape, value: unknown): IncompleteItem[] {
  // The history lists an item once, with one reason (D-TRUNC).
  const repeated = repeatsOf();
  return shape.array(value, "/incomplete").map((entry, i) => {
    const item = entryOf(shape, entry, `/incomplete/${i}`);
    const kind = shape.oneOf(item.kind, KINDS, `/incomplete/${i}/kind`);
    const id = shape.string(item.id, `/incomplete/${i}/id`);
    if (repeated(kind, id))
      shape.fail(`/incomplete/${i}`, `is a second entry for ${kind} ${quotedId(id)}: an item is listed once (D-TRUNC)`);
    return { kind, id, reason: shape.oneOf(item.reason, REASONS, `/incomplete/${i}/reason`) };
  });
}

function readIssuers(shape: JsonShape, value: unknown, messages: readonly Message[]): ValueIssuer[] {
  const records = shape.array(value, "/issuers").map((entry, i): ValueIssuer => {
    const record = entryOf(shape, entry, `/issuers/${i}`);
    const subtype = shape.oneOf(record.subtype, KINDS, `/issuers/${i}/subtype`);
    const entityId = shape.string(record.entityId, `/issuers/${i}/entityId`);
    const issuer = shape.stringOrNull(record.issuer, `/issuers/${i}/issuer`);
    if (wrongToolMessage(record))
      shape.fail(`/issuers/${i}/toolMessage`, 'is only `true`, on a record of subtype "message" (D-HISTORY-IDS)');
    return issuerRecord(subtype, entityId, issuer, record.toolMessage === true);
  });
  // One record per stored value (D-ISSUER, D-REPEAT); a tool message's is its own (D-HISTORY-IDS).
  // Before tool messages had their own records, one sharing its id with a message of another role
  // could leave two records of that id: such a history (no `toolMessage` anywhere) still reads.
  const held = messageIds(messages);
  const legacy = records.every((r) => r.toolMessage === undefined);
  const repeated = repeatsOf();
  const again = repeatsOf();
  records.forEach((r, i) => {
    const kind = r.toolMessage === true ? "tool message" : r.subtype;
    const twoMessages =
      legacy && r.subtype === "message" && held.has("tool message", r.entityId) && held.has("message", r.entityId);
    if (repeated(kind, r.entityId) && (!twoMessages || again(kind, r.entityId)))
      shape.fail(
        `/issuers/${i}`,
        `is a ${twoMessages ? "third" : "second"} record for ${kind} ${quotedId(r.entityId)}: one issuer per stored value (D-ISSUER)`,
      );
  });
  // An earlier release's record of a tool message's value is read as that tool message's (D-HISTORY-IDS).
  return ownIssuers(messages, records, held) as ValueIssuer[];
}

const DURATION_KINDS = ["message", "span"] as const;

function readDurations(shape: JsonShape, value: unknown): ReasoningDuration[] {
  // One record per item (D-DURATION).
  const repeated = repeatsOf();
  return shape.array(value, "/durations").map((entry, i) => {
    const path = `/durations/${i}`;
    const r = entryOf(shape, entry, path);
    const kind = shape.oneOf(r.kind, DURATION_KINDS, `${path}/kind`);
    const id = shape.string(r.id, `${path}/id`);
    if (repeated(kind, id))
      shape.fail(path, `is a second record for ${kind} ${quotedId(id)}: one per item (D-DURATION)`);
    const record: { -readonly [K in keyof ReasoningDuration]: ReasoningDuration[K] } = {
      kind,
      id,
      startedAt: shape.integer(r.startedAt, `${path}/startedAt`),
      startObserved: shape.boolean(r.startObserved, `${path}/startObserved`),
    };
    // In the order the history stage writes them, so that a stored history reads back byte for byte.
    if (r.spanId !== undefined) record.spanId = shape.string(r.spanId, `${path}/spanId`);
    if (r.title !== undefined) record.title = shape.string(r.title, `${path}/title`);
    if (r.endedAt !== undefined) {
      record.endedAt = shape.integer(r.endedAt, `${path}/endedAt`);
      record.endObserved = shape.boolean(r.endObserved, `${path}/endObserved`);
    }
    return record;
  });
}
