import { rawField } from "../core/json";
import { Observable, ReplaySubject, Subject, defer, from, switchMap, type ObservableInput } from "rxjs";
import { quotedId } from "../core/errors";
import type { RunAgentInput } from "@ag-ui/core";
import type { ReasoningWarning } from "../core/types";
import { warningSink } from "../core/warnings";
import type { ReasoningHistory } from "../history/types";
import { continueConversation, joinDeparted } from "./kept-conversation";
import { endedTransport } from "./transport-end";
import { shownIdentity } from "../history/producer-identity";
import { ownSeed, seedOf } from "../history/history-stage";
import { reasoningPipeline, type ReasoningPipelineOptions } from "../pipeline/reasoning-pipeline";
import { pacingOf } from "../pipeline/paced-publisher";
import { optionsOf } from "../core/arguments";

export interface ReasoningMiddlewareOptions extends Omit<
  ReasoningPipelineOptions,
  "producer" | "initialMessages" | "initialHistory" | "resumeFrom"
> {
  /** Identity of the agent this middleware is installed on (D-ISSUER), e.g. its URL or agentId. */
  readonly producer: string;
  /**
   * Where the conversation of the thread the middleware first runs starts (restored from storage, or
   * shared with another agent's pipeline); any other thread starts from the application's messages.
   * Its issuer records decide which encrypted values may travel to `producer` (R-REASON-26).
   */
  readonly initialHistory?: ReasoningHistory;
  /**
   * The saved conversation of a thread the middleware does not hold — its first run since the
   * middleware was made (a reload), or one it forgot (it keeps the 256 threads that ran last) — or
   * `undefined` when none was saved; a promise of either, e.g. `(threadId) => store.load(threadId)`
   * with a `HistoryStore` that `onHistory` saves to. Or the thread as saved with its departed
   * messages (`SavedThread`), so that a branch the application sends again after a reload gets its
   * values back too. Not asked for the thread `initialHistory` seeds.
   */
  readonly loadHistory?: (
    threadId: string,
  ) => ReasoningHistory | SavedThread | undefined | PromiseLike<ReasoningHistory | SavedThread | undefined>;
  /**
   * Called with every new history state, across runs and threads (paced by `historyPace`, D-PACE, as
   * `history$`), the thread it is the conversation of (the run input's `threadId`) and the thread's
   * departed messages (see `SavedThread`); and once more with the same history when those grew as
   * another run of the thread ended (two runs of one thread at once).
   */
  readonly onHistory?: (history: ReasoningHistory, run: ThreadOfHistory) => void;
}

/** The thread a history `onHistory` gets is the conversation of. */
export interface ThreadOfHistory {
  /** The run input's `threadId` ("" when it has none). */
  readonly threadId: string;
  /**
   * The messages with an encrypted value (on them or a tool call) that left the thread's
   * conversation in earlier runs — a branch the application replaced (a regenerate, an edit), or the
   * conversation of a run that went at the same time as the one that published last — with
   * their issuer records: the latest 256 to leave. Not part of the history, and never sent unless
   * the application sends such a message again; save it beside the history (`SavedThread`) for a
   * branch to keep its values across a reload. Immutable, as a history is.
   */
  readonly departed: ReasoningHistory;
}

/** A thread as saved for `loadHistory`: its conversation and its departed messages (`ThreadOfHistory`), either may be missing. */
export interface SavedThread {
  readonly history?: ReasoningHistory;
  readonly departed?: ReasoningHistory;
}

/** The agent the middleware chain hands over: only `run` is used. */
export interface NextAgent {
  run(input: RunAgentInput): unknown;
}

/**
 * A middleware function for `agent.use(...)`, carrying the history it derives.
 *
 * Its return type is deliberately loose: `@ag-ui/client` pins its own copy of rxjs, whose
 * `Observable` type does not accept another copy's even though both interoperate at runtime.
 */
export interface ReasoningMiddleware {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  (input: RunAgentInput, next: NextAgent): any;
  /** Every history state of every run, of every thread; the latest is replayed to a new subscriber. */
  readonly history$: Observable<ReasoningHistory>;
  /** Every warning of every run (pipeline warnings and withheld values). */
  readonly warnings$: Observable<ReasoningWarning>;
  /** The latest history (of the thread that ran last); `options.initialHistory` (or `undefined`) before the first run. */
  readonly history: ReasoningHistory | undefined;
}

/**
 * `agent.use(reasoningMiddleware({ producer: url }))`: every run of the agent goes through the
 * pipeline; the history is in `onHistory`, `history$` and `history`. It keeps the conversation
 * across runs (D-KEEPER, `continueConversation`): a value the application's message store dropped is
 * still held and goes back to `producer`; only values `producer` issued travel (D-ISSUER: any other
 * is withheld with `VALUE_WITHHELD` and stays held); values on messages it never saw are attributed
 * to `producer`, as `initialMessages` are. It keeps one conversation per thread (the run input's
 * `threadId`): a chat UI that moves the agent, or clones sharing its middlewares, between threads gets
 * each thread's values back, and nothing of one thread enters another. Inside `@ag-ui/client`, its own compatibility boundary
 * runs closest to the wire (`THINKING_*` arrive translated), and its checks run again after this.
 */
export function reasoningMiddleware(options: ReasoningMiddlewareOptions): ReasoningMiddleware {
  options = optionsOf(options, "reasoningMiddleware");
  if ((options as { resumeFrom?: unknown }).resumeFrom !== undefined) {
    // D-KEEPER: a snapshot continues one interrupted stream; every run of the middleware is a new request.
    throw new TypeError(
      "agui-reasoning: reasoningMiddleware does not take resumeFrom: each run of the agent is a new request, " +
        "which a snapshot of an interrupted stream cannot continue; give the conversation as initialHistory " +
        "(the interrupted pipeline's history) instead",
    );
  }
  // D-PACE: a bad pace is reported when the middleware is made, not at its first run; so is a bad initialHistory.
  const paced = pacingOf(options, "reasoningMiddleware") !== undefined;
  // Its own copy, taken now (D-NO-ALIAS): what the app edits before the first run is not the conversation.
  const initialHistory = options.initialHistory === undefined ? undefined : seedOf(options);
  const { onHistory, loadHistory, initialHistory: _given, ...pipelineOptions } = options;
  if (loadHistory !== undefined && typeof loadHistory !== "function")
    throw new TypeError("agui-reasoning: reasoningMiddleware's loadHistory must be a function (threadId) => history");
  const endpoint = shownIdentity(options.producer);
  // History states across runs; replays the latest.
  const histories = new ReplaySubject<ReasoningHistory>(1);
  // Warnings across runs.
  const warnings = new Subject<ReasoningWarning>();
  const sink = warningSink(options, () => warnings.observed);
  // Each thread's latest history, by the run input's threadId: what decides, on the thread's next
  // run, which values may go out (D-KEEPER). initialHistory goes to the first run's thread. In the
  // order the threads last ran, and at most KEPT_THREADS of them (one middleware shared by every
  // request of a server would otherwise keep every conversation it ever served).
  // Beside each, the messages with a value that left it (`continueConversation`'s `departed`).
  const threads = new Map<string, KeptThread>();
  // The runs of each thread that are going (subscribed, not ended), by threadId: two at once (two tabs,
  // a double submit) each continue the thread with messages of their own, and whichever ends
  // publishing last is the thread's conversation; the other's messages must not lose their values.
  const going = new Map<string, Set<GoingRun>>();
  let seed = initialHistory;
  // The latest history of any thread (`history`).
  let latest: ReasoningHistory | undefined = initialHistory;
  if (latest) histories.next(latest);

  const keep = (threadId: string, kept: KeptThread): void => {
    threads.set(threadId, kept);
    if (threads.size > KEPT_THREADS) threads.delete(threads.keys().next().value!);
  };

  const report = (w: ReasoningWarning): void => {
    sink(w);
    warnings.next(w);
  };

  const run = (input: RunAgentInput, next: NextAgent): Observable<unknown> =>
    defer(() => {
      if (typeof input !== "object" || input === null)
        throw new TypeError("agui-reasoning: reasoningMiddleware's run input must be a RunAgentInput object");
      if (typeof rawField(next, "run") !== "function")
        throw new TypeError("agui-reasoning: reasoningMiddleware needs the next agent (an object with a `run` method)");
      const threadId = threadOf(input);
      if (threads.has(threadId) || seed !== undefined || loadHistory === undefined)
        return runThread(input, next, threadId, undefined);
      // A thread the middleware does not hold: its saved conversation, if the application has one.
      const loaded = loadHistory(threadId);
      if (!isPromiseLike(loaded)) return runThread(input, next, threadId, loadedThread(loaded, threadId));
      return from(loaded).pipe(switchMap((saved) => runThread(input, next, threadId, loadedThread(saved, threadId))));
    });

  // Called where the run is subscribed (run's defer, or once loadHistory's promise settled).
  const runThread = (
    input: RunAgentInput,
    next: NextAgent,
    threadId: string,
    loaded: KeptThread | undefined,
  ): Observable<unknown> => {
    // D-KEEPER: the thread's conversation continues from the middleware's own history, not from
    // the application's (possibly lossy) copy of it.
    const kept = threads.get(threadId) ?? loaded;
    const held = kept?.history ?? seed;
    seed = undefined;
    threads.delete(threadId); // the newest now
    if (held !== undefined) keep(threadId, { history: held, departed: kept?.departed });
    const {
      history: start,
      messages,
      departed,
    } = continueConversation(held, input.messages, options.producer, report, kept?.departed);
    // A connection failing mid-response is the stream's end (a truncation when a run is open) with a
    // CONNECTION_BROKEN warning, or a TransportError when no run came; never an unhandled rejection.
    const source = endedTransport(next.run({ ...input, messages }) as ObservableInput<unknown>, endpoint, report);
    const pipeline = reasoningPipeline(source, {
      ...pipelineOptions,
      quiet: false,
      onWarning: report,
      // Built from the held history (checked when it came in) and checked copies of the application's
      // messages: not checked and copied again.
      initialHistory: ownSeed(start),
    });
    return new Observable<unknown>((subscriber) => {
      const self: GoingRun = { conversation: start, thread: { threadId, departed } };
      const others = going.get(threadId) ?? new Set<GoingRun>();
      going.set(threadId, others.add(self));
      const history = pipeline.history$.subscribe((h) => {
        self.conversation = h;
        keep(threadId, { history: h, departed: self.thread.departed });
        latest = h;
        histories.next(h);
        // The application's callback failing fails the run, as a throwing onWarning does (not an
        // error thrown later, outside any promise, which would end a server's process).
        try {
          onHistory?.(h, self.thread);
        } catch (error) {
          subscriber.error(error);
        }
      });
      // The run is over: when another run of the thread published after it (it is the thread's
      // conversation now) or is still going (it may be), this run's messages with a value join the
      // departed messages of each, as a branch's do: sent again, they get their values back. The
      // thread's record changes without a new history: `onHistory` gets it again, with them (what it
      // throws is returned, for the run to fail with when it can).
      const leave = (): { thrown: unknown } | undefined => {
        others.delete(self);
        if (others.size === 0) going.delete(threadId);
        const last = self.conversation;
        for (const other of others)
          other.thread = { threadId, departed: joinDeparted(other.thread.departed, last, other.conversation.messages) };
        const record = threads.get(threadId);
        if (record?.history === undefined || record.history === last) return undefined;
        // The run that published it, if it still goes, has just joined them (its departed are the record's).
        const writer = [...others].find((other) => other.conversation === record.history);
        const departed = writer?.thread.departed ?? joinDeparted(record.departed, last, record.history.messages);
        keep(threadId, { history: record.history, departed });
        try {
          onHistory?.(record.history, { threadId, departed });
        } catch (thrown) {
          return { thrown };
        }
        return undefined;
      };
      // Whether the run ended (its last history published, D-PACE) before the client let go of it.
      let ended = false;
      const events = subscriber.closed
        ? undefined
        : pipeline.events$.subscribe({
            next: (event) => subscriber.next(event),
            error: (error: unknown) => {
              ended = true;
              leave(); // the run fails with its own error, not the callback's
              subscriber.error(error);
            },
            complete: () => {
              ended = true;
              const callback = leave();
              if (callback === undefined) subscriber.complete();
              else subscriber.error(callback.thrown);
            },
          });
      return () => {
        events?.unsubscribe();
        // Let go mid-run (AbstractAgent.detachActiveRun: CopilotKit on a thread switch or unmount):
        // a paced history still pending is the thread's conversation too. exportState() publishes it
        // (D-PACE); mid-event it refuses, and what was published stays.
        if (!ended && paced)
          try {
            pipeline.exportState();
          } catch {
            // nothing more to publish
          }
        history.unsubscribe();
        if (!ended) leave(); // the client let go: nobody is left to fail, as with a publication's callback above
      };
    });
  };

  return Object.defineProperties(run, {
    history$: { value: histories.asObservable(), enumerable: true },
    warnings$: { value: warnings.asObservable(), enumerable: true },
    history: { get: () => latest, enumerable: true },
  }) as ReasoningMiddleware;
}

/** A thread's conversation as the middleware keeps it. */
interface KeptThread {
  readonly history: ReasoningHistory | undefined;
  /** Messages with a value that left it, which a branch the application sends again gives back. */
  readonly departed: ReasoningHistory | undefined;
}

/** A run of a thread, while it goes. */
interface GoingRun {
  /** Its last history published (the first, its start, as it is subscribed). */
  conversation: ReasoningHistory;
  /** What its publications give `onHistory`: its departed messages grow when another run of the thread ends. */
  thread: ThreadOfHistory;
}

/** How many threads' conversations a middleware keeps: the threads that ran last. */
const KEPT_THREADS = 256;

/**
 * What loadHistory gave: a history (it has `messages`), or a `SavedThread`; each history checked and
 * copied as `initialHistory` is, or a `TypeError` naming the thread and the part.
 */
function loadedThread(saved: unknown, threadId: string): KeptThread | undefined {
  if (saved === undefined) return undefined;
  const refused = (part: string, why: string): TypeError =>
    new TypeError(
      `agui-reasoning: reasoningMiddleware: the ${part} loadHistory gave for thread ${quotedId(threadId)} is refused: ${why}`,
    );
  const neither = "it is neither a history, a { history, departed } object nor undefined";
  if (typeof saved !== "object" || saved === null) throw refused("value", neither);
  // Each field of a SavedThread read once (a getter may answer differently twice; a history's own fields are
  // read by seedOf); one that throws is named, never quoted (D-REDACT).
  const field = (key: "messages" | "history" | "departed", part: string): unknown => {
    try {
      return (saved as Record<string, unknown>)[key];
    } catch {
      throw refused(part, "it cannot be read");
    }
  };
  if (field("messages", "history") !== undefined)
    return { history: loadedHistory(saved, "history", refused), departed: undefined };
  if (!isSavedThread(saved)) throw refused("value", neither);
  return {
    history: loadedHistory(field("history", "history"), "history", refused),
    departed: loadedHistory(field("departed", "departed messages"), "departed messages", refused),
  };
}

/** A history of a loaded thread, checked and copied as `initialHistory` is (undefined: none). */
function loadedHistory(
  history: unknown,
  part: string,
  refused: (part: string, why: string) => TypeError,
): ReasoningHistory | undefined {
  if (history === undefined) return undefined;
  try {
    return seedOf({ initialHistory: history as ReasoningHistory });
  } catch (error) {
    // The checks' own words; anything else thrown may quote the conversation (D-REDACT), so not as `cause` either.
    throw refused(
      part,
      error instanceof TypeError ? error.message.replace(/^agui-reasoning: /, "") : "it cannot be read",
    );
  }
}

/** Whether `value` names a `SavedThread`'s field (present, even if undefined: nothing was saved); a trap that throws: no. */
function isSavedThread(value: object): boolean {
  try {
    return Reflect.has(value, "history") || Reflect.has(value, "departed");
  } catch {
    return false;
  }
}

function isPromiseLike(value: unknown): value is PromiseLike<unknown> {
  return typeof value === "object" && value !== null && typeof rawField(value, "then") === "function";
}

/** The thread a run input belongs to: its `threadId`, or "" when it has none (a getter that throws has none). */
function threadOf(input: RunAgentInput): string {
  const threadId = rawField(input, "threadId");
  return typeof threadId === "string" ? threadId : "";
}
