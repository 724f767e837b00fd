import type { AguiEvent, StepContext } from "../core/types";
import { synthesizedTimestampOf } from "../chunks/synthesized-time";
import type { Conversation } from "./conversation";
import { PublishedList } from "./published-list";
import { readField } from "./read-event";
import type { ReasoningDuration } from "./types";
import { METADATA_KEY } from "../upcast/thinking-title";

/**
 * Reasoning durations (D-DURATION): when each reasoning message, and each span holding one, started
 * and ended, kept beside the messages. Only START and END events touch them (a delta never does, so
 * the delta lane leaves them exact). Like the issuer records, a `PublishedList`: recording a start
 * costs O(1) amortized, not a copy.
 */
export type DurationRecords = PublishedList<ReasoningDuration>;

/** A span opened and not closed yet; its record is made when its first reasoning message starts. */
export interface OpenSpan {
  readonly id: string;
  readonly startedAt: number;
  readonly startObserved: boolean;
  readonly title?: string;
}

/** The history stage's private duration bookkeeping (threaded linearly, in `ConversationIndex`). */
export interface DurationIndex {
  /** Id → position of its record, per kind (two maps: no key string made per lookup). */
  readonly slot: { readonly [K in ReasoningDuration["kind"]]: Map<string, number> };
  /** Spans open now, in opening order; a message starting belongs to the last one. */
  readonly openSpans: Map<string, OpenSpan>;
}

/** The clock an instant falls back to when its event carries no timestamp. */
export type Clock = () => number;

interface Instant {
  readonly at: number;
  readonly observed: boolean;
}

/**
 * When `event` happened: its own `timestamp` (a safe integer, as the schema requires), or for an event
 * expansion synthesized the timestamp of the chunk or trigger that caused it (R-PROC-15: the event itself
 * does not inherit it), else `now()`, observed.
 */
function instantOf(event: AguiEvent, ctx: StepContext, now: Clock): Instant {
  const stamp = readField(event, "timestamp", ctx);
  if (typeof stamp === "number" && Number.isSafeInteger(stamp)) return { at: stamp, observed: false };
  const synthesized = synthesizedTimestampOf(event);
  if (synthesized !== undefined) return { at: synthesized, observed: false };
  return { at: now(), observed: true };
}

/** REASONING_START: the span is open (its record waits for a reasoning message). */
export function openSpan(conversation: Conversation, event: AguiEvent, ctx: StepContext, now: Clock): void {
  const id = readField(event, "messageId", ctx);
  if (typeof id !== "string") return;
  const { at, observed } = instantOf(event, ctx, now);
  const title = titleOf(readField(event, "metadata", ctx));
  const span: OpenSpan =
    title === undefined
      ? { id, startedAt: at, startObserved: observed }
      : { id, startedAt: at, startObserved: observed, title };
  const spans = conversation.index.durations.openSpans;
  spans.delete(id);
  spans.set(id, span);
}

/** REASONING_END: the span's record, if it holds a message, gets its end; the span is closed. */
export function closeSpan(conversation: Conversation, event: AguiEvent, ctx: StepContext, now: Clock): Conversation {
  const id = readField(event, "messageId", ctx);
  if (typeof id !== "string") return conversation;
  conversation.index.durations.openSpans.delete(id);
  return ended(conversation, "span", id, instantOf(event, ctx, now));
}

/** REASONING_MESSAGE_START: the message's record (its span's too, on the span's first message). */
export function startReasoning(
  conversation: Conversation,
  id: string,
  event: AguiEvent,
  ctx: StepContext,
  now: Clock,
): Conversation {
  const { slot, openSpans } = conversation.index.durations;
  const at = slot.message.get(id);
  // A reopened message (R-TEXT-5) keeps its first start and is open again.
  if (at !== undefined) {
    const open = withEnd(conversation.durations.at(at)!, undefined);
    return conversation.withDurations(conversation.durations.set(at, open));
  }
  const { at: startedAt, observed } = instantOf(event, ctx, now);
  let records = conversation.durations;
  let span: OpenSpan | undefined;
  for (const open of openSpans.values()) span = open;
  if (span !== undefined && !slot.span.has(span.id)) {
    slot.span.set(span.id, records.size);
    const { id: spanId, startedAt: spanStart, startObserved: spanObserved, title } = span;
    records = records.push(
      title === undefined
        ? { kind: "span", id: spanId, startedAt: spanStart, startObserved: spanObserved }
        : { kind: "span", id: spanId, startedAt: spanStart, startObserved: spanObserved, title },
    );
  }
  slot.message.set(id, records.size);
  const record: ReasoningDuration =
    span === undefined
      ? { kind: "message", id, startedAt, startObserved: observed }
      : { kind: "message", id, startedAt, startObserved: observed, spanId: span.id };
  return conversation.withDurations(records.push(record));
}

/** REASONING_MESSAGE_END: the message's record gets its end. */
export function endReasoning(
  conversation: Conversation,
  id: string,
  event: AguiEvent,
  ctx: StepContext,
  now: Clock,
): Conversation {
  return ended(conversation, "message", id, instantOf(event, ctx, now));
}

function ended(conversation: Conversation, kind: ReasoningDuration["kind"], id: string, end: Instant): Conversation {
  const at = conversation.index.durations.slot[kind].get(id);
  if (at === undefined) return conversation;
  const record = conversation.durations.at(at)!;
  if (record.endedAt !== undefined) return conversation;
  return conversation.withDurations(conversation.durations.set(at, withEnd(record, end)));
}

/**
 * `record` with `end` (undefined: with no end), in the records' key order. Built field by field: an
 * object spread of a record took V8's slow clone path, ≈ 20× this (7 % of the paced facade's time
 * in issue 23's profile).
 */
function withEnd(record: ReasoningDuration, end: Instant | undefined): ReasoningDuration {
  const copy: { -readonly [K in keyof ReasoningDuration]: ReasoningDuration[K] } = {
    kind: record.kind,
    id: record.id,
    startedAt: record.startedAt,
    startObserved: record.startObserved,
  };
  if (record.spanId !== undefined) copy.spanId = record.spanId;
  if (record.title !== undefined) copy.title = record.title;
  if (end !== undefined) {
    copy.endedAt = end.at;
    copy.endObserved = end.observed;
  }
  return copy;
}

/** Open spans are over (RUN_ERROR, end of source): they keep a start and no end. */
export function forgetOpenSpans(conversation: Conversation): void {
  conversation.index.durations.openSpans.clear();
}

/**
 * Keeps the records of held messages, and of spans still holding one (after a snapshot took messages
 * away: O(records), as the snapshot). Rebuilds the slots.
 */
export function keepHeldDurations(conversation: Conversation): Conversation {
  const records = conversation.durations.toArray();
  const kept = heldDurations(records, conversation.index.position);
  if (kept.length === records.length) return conversation;
  indexDurations(kept, conversation.index.durations);
  return conversation.withDurations(PublishedList.of(kept));
}

/** The records of the messages `held` has, and of the spans those messages started in. */
export function heldDurations(
  records: readonly ReasoningDuration[],
  held: { has(id: string): boolean },
): ReasoningDuration[] {
  const spans = new Set<string>();
  for (const r of records) if (r.kind === "message" && r.spanId !== undefined && held.has(r.id)) spans.add(r.spanId);
  return records.filter((r) => (r.kind === "message" ? held.has(r.id) : spans.has(r.id)));
}

/** A fresh index for `records` (a seed's, a resumed state's). */
export function indexDurations(records: readonly ReasoningDuration[], index: DurationIndex): void {
  index.slot.message.clear();
  index.slot.span.clear();
  // A record of another kind (a hand-made seed) is kept and never looked up, as before.
  records.forEach((r, i) => (r.kind === "message" || r.kind === "span") && index.slot[r.kind].set(r.id, i));
}

/** The D-THINK-TITLE title in a span's metadata (`metadata["agui-reasoning"].thinkingTitle`), if a string. */
function titleOf(metadata: unknown): string | undefined {
  if (typeof metadata !== "object" || metadata === null) return undefined;
  try {
    const own = (metadata as Record<string, unknown>)[METADATA_KEY];
    if (typeof own !== "object" || own === null) return undefined;
    const title = (own as Record<string, unknown>).thinkingTitle;
    return typeof title === "string" ? title : undefined;
  } catch {
    // A hostile getter: the title is display-only, so none is shown (the span still counts).
    return undefined;
  }
}
