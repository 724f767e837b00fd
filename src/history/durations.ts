import type { AguiEvent, StepContext } from "../core/types";
import { synthesizedTimestampOf } from "../chunks/synthesize";
import { kindTable, type Conversation, type OpenSpan } from "./conversation";
import { spaceOf, Table } from "./table";
import { readField } from "./read-event";
import type { ReasoningDuration } from "./types";
import { METADATA_KEY } from "../upcast/thinking-title";
import { isInstant } from "../core/json";

/**
 * Reasoning durations (D-DURATION): when each reasoning message, and each span holding one, started
 * and ended, kept beside the messages. Only START and END events touch them (a delta never does, so
 * the delta lane leaves them exact). A `Table` keyed by id in its kind's space (a message's record
 * in 0, a span's in 1): recording a start costs O(log32 n), not a copy.
 */

const MESSAGE = spaceOf("message");
const SPAN = spaceOf("span");

/** The clock an instant falls back to when its event carries no timestamp. */
export type Clock = () => number;

export interface Instant {
  readonly at: number;
  readonly observed: boolean;
}

/**
 * When `event` happened: its own `timestamp` (a safe integer, as the schema requires), or for an event
 * expansion synthesized the timestamp of the chunk or trigger that caused it (R-PROC-15: the event itself
 * does not inherit it), else `now()`, observed.
 */
export function instantOf(event: AguiEvent, ctx: StepContext, now: Clock): Instant {
  const stamp = readField(event, "timestamp", ctx);
  const at = isInstant(stamp) ? stamp : synthesizedTimestampOf(event);
  // `|| 0`: a timestamp of -0 is kept as 0, which is what storage reads back (JSON has no -0).
  return at === undefined ? { at: now(), observed: true } : { at: at || 0, observed: false };
}

/** REASONING_START: the span is open (its record waits for a reasoning message). */
export function openSpan(conversation: Conversation, event: AguiEvent, ctx: StepContext, now: Clock): Conversation {
  const id = readField(event, "messageId", ctx);
  if (typeof id !== "string") return conversation;
  const { at, observed } = instantOf(event, ctx, now);
  const title = titleOf(readField(event, "metadata", ctx));
  const span: OpenSpan =
    title === undefined
      ? { id, startedAt: at, startObserved: observed }
      : { id, startedAt: at, startObserved: observed, title };
  return conversation.with({ openSpans: conversation.parts.openSpans.remove(id).push(span, id) });
}

/** REASONING_END: the span's record, if it holds a message, gets its end; the span is closed. */
export function closeSpan(conversation: Conversation, event: AguiEvent, ctx: StepContext, now: Clock): Conversation {
  const id = readField(event, "messageId", ctx);
  if (typeof id !== "string") return conversation;
  // Read before the first edit (see history-stage.ts).
  const end = instantOf(event, ctx, now);
  const { openSpans } = conversation.parts;
  const closed = openSpans.has(id) ? conversation.with({ openSpans: openSpans.remove(id) }) : conversation;
  return ended(closed, "span", id, end);
}

/**
 * When the reasoning message `id` a REASONING_MESSAGE_START opens started, read before the step's
 * first edit (see history-stage.ts); undefined when it is reopened (R-TEXT-5: its record stands).
 */
export function startOf(
  conversation: Conversation,
  id: string,
  event: AguiEvent,
  ctx: StepContext,
  now: Clock,
): Instant | undefined {
  return conversation.parts.durations.has(id, MESSAGE) ? undefined : instantOf(event, ctx, now);
}

/** REASONING_MESSAGE_START: the message's record (its span's too, on the span's first message); `start` from `startOf`. */
export function startReasoning(conversation: Conversation, id: string, start: Instant | undefined): Conversation {
  let records = conversation.parts.durations;
  // A reopened message (R-TEXT-5) keeps its first start and is open again.
  if (start === undefined) {
    const slot = records.slotOf(id, MESSAGE)!;
    const { endedAt: _end, endObserved: _observed, ...open } = records.at(slot)!;
    return conversation.with({ durations: records.setAt(slot, open) });
  }
  const { at: startedAt, observed } = start;
  const span = conversation.parts.openSpans.last();
  if (span !== undefined && !records.has(span.id, SPAN)) {
    const { id: spanId, startedAt: spanStart, startObserved: spanObserved, title } = span;
    records = records.pushNew(
      title === undefined
        ? { kind: "span", id: spanId, startedAt: spanStart, startObserved: spanObserved }
        : { kind: "span", id: spanId, startedAt: spanStart, startObserved: spanObserved, title },
      spanId,
      SPAN,
    );
  }
  const record: ReasoningDuration =
    span === undefined
      ? { kind: "message", id, startedAt, startObserved: observed }
      : { kind: "message", id, startedAt, startObserved: observed, spanId: span.id };
  return conversation.with({ durations: records.pushNew(record, id, MESSAGE) });
}

/** An END: the record of `kind` `id` gets its `end` (read before the step's first edit), unless it has one. */
export function ended(
  conversation: Conversation,
  kind: ReasoningDuration["kind"],
  id: string,
  end: Instant,
): Conversation {
  const { durations } = conversation.parts;
  const slot = durations.slotOf(id, spaceOf(kind));
  const record = slot === undefined ? undefined : durations.at(slot)!;
  if (record === undefined || record.endedAt !== undefined) return conversation;
  return conversation.with({ durations: durations.setAt(slot!, withEnd(record, end)) });
}

/**
 * `record` with `end`, in the records' key order, built field by field: an object spread of a
 * record, even a plain clone, took V8's slow clone path at ≈ 20× this (issue 23's profile of the
 * paced facade: 5–7 % of its self time).
 */
function withEnd(record: ReasoningDuration, end: Instant): ReasoningDuration {
  const copy: { -readonly [K in keyof ReasoningDuration]: ReasoningDuration[K] } = {
    kind: record.kind,
    id: record.id,
    startedAt: record.startedAt,
    startObserved: record.startObserved,
  };
  if (record.spanId !== undefined) copy.spanId = record.spanId;
  if (record.title !== undefined) copy.title = record.title;
  copy.endedAt = end.at;
  copy.endObserved = end.observed;
  return copy;
}

/** Open spans are over (RUN_ERROR, end of source): they keep a start and no end. */
export function forgetOpenSpans(conversation: Conversation): Conversation {
  return conversation.parts.openSpans.size === 0 ? conversation : conversation.with({ openSpans: Table.empty() });
}

/**
 * Keeps the records of held messages, and of spans still holding one (after a snapshot took messages
 * away: O(records), as the snapshot). Rebuilds the table.
 */
export function keepHeldDurations(conversation: Conversation): Conversation {
  const records = conversation.parts.durations.toArray();
  const kept = heldDurations(records, { has: (id) => conversation.positionOf(id) !== undefined });
  if (kept.length === records.length) return conversation;
  return conversation.with({ durations: kindTable(kept) });
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
