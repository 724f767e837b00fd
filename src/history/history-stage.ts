import { EventType, type Message } from "@ag-ui/core";
import { asyncScheduler, type SchedulerLike } from "rxjs";
import { NONE, result } from "../core/types";
import type { AguiEvent, Stage, StepContext, StepResult, WarningOptions } from "../core/types";
import { appendContent, endMessage, REASONING_FAMILY, startMessage, TEXT_FAMILY } from "./apply-messages";
import { addToolResult, appendArguments, endToolCall, startToolCall } from "./apply-tool-calls";
import { patchActivity, snapshotActivity } from "./apply-activity";
import { reconcileSnapshot, startRun } from "./apply-snapshot";
import { Conversation, type HistoryState } from "./conversation";
import { maxContentLengthOf } from "./content-limit";
import { endOpenItems } from "./incomplete";
import { closeSpan, forgetOpenSpans, openSpan, type Clock } from "./durations";
import { heldRecords } from "./held-records";
import { issuersOf } from "./issuers";
import { earlierCopies, repeatedId, wrongToolMessage } from "./message-key";
import { messageProblem, readEvent } from "./read-event";
import { routeEncryptedValue } from "./route-value";
import { ownCopy } from "./own-copy";
import type { IncompleteItem, ReasoningDuration, ReasoningHistory, ValueIssuer } from "./types";
import { isInstant, isPlainObject, listCopy, NotJsonData } from "../core/json";
import { optionsOf } from "../core/arguments";

export type { HistoryState } from "./conversation";

export interface HistoryOptions extends WarningOptions {
  /**
   * Issuer identity of this pipeline's producer (D-ISSUER): a stable one, e.g. the agent's id or its
   * canonical URL (URLs compare by their WHATWG serialization, D-IDENTITY).
   */
  producer?: string;
  /** Messages the consumer already holds; values found on them are attributed to `producer`. */
  initialMessages?: readonly Message[];
  /** A previous ReasoningHistory (keeps its issuers exactly); wins over initialMessages. */
  initialHistory?: ReasoningHistory;
  /**
   * UTF-16 code units one message's content (or one tool call's arguments) may hold; the delta that
   * would pass it fails the run with LIMIT_EXCEEDED (D-LIMIT). Default 2^28.
   */
  maxContentLength?: number;
  /**
   * The clock of reasoning durations (D-DURATION) for events that carry no `timestamp`
   * (`scheduler.now()` at arrival, marked observed), and the one `historyPace` counts its windows
   * on. Default `asyncScheduler` (`Date.now()`, `setTimeout`); `animationFrameScheduler` in a browser.
   */
  scheduler?: SchedulerLike;
  /**
   * D-PACE (`deriveHistory`, the facade, the middleware; the stage itself ignores it): publish the
   * history at most once per this many milliseconds of `scheduler` time — the first change after a
   * quiet window at once, the latest of those within the window at its end, and whatever is pending
   * before RUN_FINISHED / RUN_ERROR, the end of the source and `exportState()`. Unset: after every
   * event that changes it.
   */
  historyPace?: number;
}

/**
 * The history reducer (stage 5): one pure step that routes encrypted values and derives the
 * `ReasoningHistory` (digest §1 R-REASON-15…22, §9 R-STATE-3…8, §5 R-META-4/5, R-TEXT-5).
 *
 * `out` is the input event unchanged, except a REASONING_ENCRYPTED_VALUE whose target is unknown,
 * which is dropped with a warning (D-UNKNOWN-ENTITY). `state.history` is immutable and structurally
 * shared: a delta costs O(log n) in the number of messages, and the plain arrays are built only when
 * `history` is read (see `Conversation`). Across runs messages accumulate (R-STATE-8, R-RUN-10).
 *
 * Input is meant to be validated, expanded and verified; the stage still checks what it reads and
 * rejects a fragment without a referent (it never invents a message, R-REASON-9).
 * STATE_SNAPSHOT / STATE_DELTA are not part of the history (state is out of scope).
 */
export function createHistoryStage(options?: HistoryOptions): Stage<HistoryState, AguiEvent, AguiEvent> {
  options = optionsOf(options, "deriveHistory");
  const producer = options.producer;
  if (producer !== undefined && typeof producer !== "string")
    throw new TypeError("agui-reasoning: `producer` must be a string");
  const maxContentLength = maxContentLengthOf(options.maxContentLength, "deriveHistory");
  const seed = seedOf(options);
  const now = clockOf(options.scheduler);
  const stage: Stage<Conversation, AguiEvent, AguiEvent> = {
    name: "history",
    // Tables of its own per subscription: two subscriptions editing tables of one seed in turn would
    // re-root the seed's key maps at every edit (table.ts), O(changes since the seed) each.
    init: () => Conversation.start(seed, producer),
    // Each in its conversation's edit epoch (epoch.ts). A step that throws has edited nothing yet:
    // every step reads and checks all it needs before its first edit, since an edit in place cannot
    // be taken back and the caller goes on from the state it passed (test/history/transient.test.ts).
    step: (conversation, event, ctx) => {
      const was = conversation.editing();
      try {
        return reduce(conversation, event, ctx, maxContentLength, now);
      } finally {
        conversation.edited(was);
      }
    },
    // D-TRUNC: the source ended; whatever is still open is truncated (the verify stage reports the error).
    finish: (conversation) => {
      const was = conversation.editing();
      try {
        return result(endOpenItems(forgetOpenSpans(conversation), "truncated"), NONE);
      } finally {
        conversation.edited(was);
      }
    },
  };
  return stage;
}

function reduce(
  conversation: Conversation,
  input: AguiEvent,
  ctx: StepContext,
  maxContentLength: number,
  now: Clock,
): StepResult<Conversation, AguiEvent> {
  const event = readEvent(input, ctx);
  switch (event.type) {
    case EventType.TEXT_MESSAGE_START:
      return startMessage(conversation, event, ctx, TEXT_FAMILY);
    case EventType.TEXT_MESSAGE_CONTENT:
      return appendContent(conversation, event, ctx, TEXT_FAMILY, maxContentLength);
    case EventType.TEXT_MESSAGE_END:
      return endMessage(conversation, event, ctx, TEXT_FAMILY);
    case EventType.REASONING_MESSAGE_START:
      return startMessage(conversation, event, ctx, REASONING_FAMILY, now);
    case EventType.REASONING_MESSAGE_CONTENT:
      return appendContent(conversation, event, ctx, REASONING_FAMILY, maxContentLength);
    case EventType.REASONING_MESSAGE_END:
      return endMessage(conversation, event, ctx, REASONING_FAMILY, now);
    case EventType.TOOL_CALL_START:
      return startToolCall(conversation, event, ctx);
    case EventType.TOOL_CALL_ARGS:
      return appendArguments(conversation, event, ctx, maxContentLength);
    case EventType.TOOL_CALL_END:
      return endToolCall(conversation, event, ctx);
    case EventType.TOOL_CALL_RESULT:
      return addToolResult(conversation, event, ctx);
    case EventType.ACTIVITY_SNAPSHOT:
      return snapshotActivity(conversation, event, ctx);
    case EventType.ACTIVITY_DELTA:
      return patchActivity(conversation, event, ctx);
    case EventType.MESSAGES_SNAPSHOT:
      return reconcileSnapshot(conversation, event, ctx);
    case EventType.REASONING_ENCRYPTED_VALUE:
      return routeEncryptedValue(conversation, event, ctx);
    case EventType.RUN_STARTED:
      return startRun(conversation, event, ctx);
    case EventType.RUN_ERROR:
      // D-RUN-ERROR: open items are abandoned; their partial content stays (and their durations no end).
      return endOpenItems(forgetOpenSpans(conversation), "abandoned").passing(event);
    case EventType.REASONING_START:
      // A span creates no message (R-REASON-6); it is dated once it holds one (D-DURATION).
      return openSpan(conversation, event, ctx, now).passing(event);
    case EventType.REASONING_END:
      return closeSpan(conversation, event, ctx, now).passing(event);
    default:
      // Steps, state, custom, raw, subagent events: nothing in history.
      return conversation.passing(event);
  }
}

/**
 * Histories the package made itself for a seed (the middleware's next run, `continueConversation`): already
 * checked and its own (D-NO-ALIAS), its records naming only what its messages hold. `seedOf` takes each
 * once, without checking and copying it again — O(conversation) per run, most of a middleware run on a
 * long conversation. Weak: a history never given as a seed is not kept.
 */
const OWN_SEEDS = new WeakSet<object>();

/** Marks `history`, which the package built from its own copies and checked data, as the next seed `seedOf` takes as it is. */
export function ownSeed(history: ReasoningHistory): ReasoningHistory {
  OWN_SEEDS.add(history);
  return history;
}

/** A seed has no run open: an item it lists as open was cut off with its stream (R-RUN-5) — truncated. */
function closedSeed(history: ReasoningHistory): ReasoningHistory {
  if (!history.incomplete.some((item) => item.reason === "open")) return history;
  return { ...history, incomplete: history.incomplete.map(truncated) };
}

const truncated = (item: IncompleteItem): IncompleteItem =>
  item.reason === "open" ? { ...item, reason: "truncated" } : item;

/**
 * The starting point every subscription shares: the (one) initial history object, checked — a
 * `TypeError` naming the part of `initialHistory` or `initialMessages` at fault — and the package's
 * own copy (D-NO-ALIAS): an app that later edits the objects it gave (a UI store dropping fields it
 * does not know, `encryptedValue` among them) changes nothing the pipeline holds or sends back.
 */
export function seedOf(options: HistoryOptions): ReasoningHistory {
  const { initialHistory, initialMessages } = options;
  if (initialHistory !== undefined && OWN_SEEDS.delete(initialHistory)) return closedSeed(initialHistory);
  if (initialHistory !== undefined) {
    if (typeof initialHistory !== "object" || initialHistory === null) {
      throw new TypeError("agui-reasoning: initialHistory must be a ReasoningHistory object");
    }
    const field = (key: keyof ReasoningHistory): unknown =>
      readable(`initialHistory.${key}`, () => initialHistory[key]);
    const durations = field("durations");
    const messages = checkSeed(field("messages"), "initialHistory.messages");
    // Records naming nothing the messages hold go, as the middleware's and a snapshot's do (D-PATHS).
    return {
      messages,
      ...heldRecords(messages, {
        // A seed has no run open: an item it lists as open was cut off with its stream (a run aborted, a
        // history saved mid-run) and can never go on here — truncated (R-RUN-5), not streaming forever.
        incomplete: checkRecords<IncompleteItem>(field("incomplete"), "initialHistory.incomplete", "kind", "id").map(
          truncated,
        ),
        issuers: checkRecords<ValueIssuer>(field("issuers"), "initialHistory.issuers", "subtype", "entityId").map(
          (record, i) => {
            // What parseHistory would refuse is refused here too (a tool message's record, D-HISTORY-IDS).
            if (wrongToolMessage(record))
              throw new TypeError(
                `agui-reasoning: initialHistory.issuers[${i}].toolMessage must be absent, or true on a record of subtype "message"`,
              );
            return record;
          },
        ),
        // A history from before D-DURATION has no durations: it gets an empty list.
        durations: checkRecords<ReasoningDuration>(durations ?? [], "initialHistory.durations", "kind", "id").map(
          (record, i) => {
            // The view subtracts these (D-DURATION): what parseHistory would refuse is refused here too.
            if (!isInstant(record.startedAt) || (record.endedAt !== undefined && !isInstant(record.endedAt))) {
              throw new TypeError(
                `agui-reasoning: initialHistory.durations[${i}] must have an integer \`startedAt\` (and \`endedAt\`, if any) in milliseconds`,
              );
            }
            return record;
          },
        ),
      }),
    };
  }
  const messages = initialMessages === undefined ? [] : checkSeed(initialMessages, "initialMessages");
  const issuers: ValueIssuer[] = [];
  for (const message of messages) issuersOf(message, options.producer, issuers);
  return { messages, incomplete: [], issuers, durations: [] };
}

/** Copies of the seed's messages, each checked (a message, held once: R-EVT-8, D-HISTORY-IDS, as parseHistory requires). */
function checkSeed(messages: unknown, name: string): Message[] {
  const earlier = earlierCopies();
  return listOf(messages, name).map((message, i) => {
    const copy = readable(`${name}[${i}]`, () => ownCopy(message));
    const problem = messageProblem(copy);
    if (problem !== undefined) throw new TypeError(`agui-reasoning: ${name}[${i}]: ${problem}`);
    const before = earlier(copy as Message, i);
    if (before !== undefined) {
      throw new TypeError(
        `agui-reasoning: ${name}[${i}] repeats ${repeatedId(copy as Message)} of ${name}[${before}]: a history holds each message once (R-EVT-8)`,
      );
    }
    return copy as Message;
  });
}

/** Copies of the seed's records, each an object with the string `fields`. */
function checkRecords<T>(records: unknown, name: string, ...fields: string[]): T[] {
  return listOf(records, name).map((record, i) => {
    const copy = readable(`${name}[${i}]`, () => ownCopy(record));
    if (!isPlainObject(copy) || !fields.every((f) => typeof copy[f] === "string")) {
      throw new TypeError(
        `agui-reasoning: ${name}[${i}] must be an object with string ${fields.map((f) => `\`${f}\``).join(" and ")}`,
      );
    }
    return copy as T;
  });
}

/** The elements of an array of the seed (`listCopy`: its length read once and bounded, a hole refused). */
function listOf(value: unknown, name: string): unknown[] {
  const list = readable(name, () => (Array.isArray(value) ? listCopy(value) : undefined));
  if (list === undefined) throw new TypeError(`agui-reasoning: ${name} must be an array`);
  return list;
}

/**
 * `read()` of the seed, or a `TypeError` naming `name`: when a getter or proxy trap throws (never its
 * message, D-REDACT: not as `cause` either), or when what it copies is not JSON data (by kind, never a value).
 */
function readable<T>(name: string, read: () => T): T {
  let notJson: string | undefined;
  try {
    return read();
  } catch (error) {
    notJson = error instanceof NotJsonData ? error.message : undefined;
  }
  throw new TypeError(
    notJson === undefined
      ? `agui-reasoning: ${name} cannot be read (a read of it threw)`
      : `agui-reasoning: ${name} is not JSON data: ${notJson}`,
  );
}

function clockOf(scheduler: SchedulerLike = asyncScheduler): Clock {
  const notAClock = "agui-reasoning: `scheduler` must be an RxJS SchedulerLike whose `now()` gives milliseconds";
  if (typeof scheduler !== "object" || scheduler === null || typeof scheduler.now !== "function")
    throw new TypeError(notAClock);
  // An instant is whole milliseconds, as storage and resume read it back (D-HISTORY-IDS): a clock
  // with fractions (performance.now()) is rounded; one that gives no time fails the run.
  return () => {
    const at = Math.round(scheduler.now());
    if (isInstant(at)) return at;
    throw new TypeError(notAClock);
  };
}
