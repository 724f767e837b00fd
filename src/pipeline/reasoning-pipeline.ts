import { Observable, Subscription, type Subscribable, type Unsubscribable } from "rxjs";
import type { AguiEvent, ReasoningWarning } from "../core/types";
import { subscribeWithin } from "../core/subscribe-within";
import type { UpcastOptions } from "../upcast/upcast-thinking";
import type { VerifyOptions } from "../discipline/verify-discipline";
import type { HistoryOptions } from "../history/history-stage";
import type { ReasoningHistory } from "../history/types";
import type { PipelineSnapshot } from "../resume/pipeline-snapshot";
import type { Resumable } from "../resume/resumable";
import { FacadeRun } from "./facade-run";
import type { Fanout } from "./fanout";
import { optionsOf } from "../core/arguments";

export interface ReasoningPipelineOptions extends UpcastOptions, VerifyOptions, HistoryOptions {
  /**
   * Continue where another pipeline stopped: `resumable(snapshot)` from `agui-reasoning/resilience`,
   * of its `exportState()` (possibly through JSON). Every stage starts from that state and source
   * indexes continue from its `index`. Checked at creation (a broken snapshot is a `TypeError`); it
   * must have been exported for the same `producer`, and it already holds the history, so
   * `initialHistory`/`initialMessages` cannot be given with it.
   */
  resumeFrom?: Resumable;
}

/**
 * The three views of one run of the pipeline over one subscription of the source.
 *
 * **When the source starts.** Once, when `events$` is first subscribed or `connect()` is called.
 * Subscribe `history$` and `warnings$` before that to see every emission of a synchronous source
 * (`from(array)`); `history$` replays its latest state, so for history alone the order does not matter.
 *
 * **When it stops.** When the source terminates, or when every subscriber of the three views (and
 * of `connect()`) has unsubscribed: then the source is unsubscribed (for `HttpAgent.run()`, which
 * sends when called and never aborts, use `agentEvents(agent, input)`). It runs its source at most
 * once: a subscriber after that teardown gets `history$` the last history and completion,
 * `warnings$` completion, `events$` an `Error` saying the pipeline already ran (`ALREADY_RAN`).
 */
export interface ReasoningPipeline {
  /** Validated, expanded, verified events. Errors with `ReasoningProtocolError` on a violation (or with the source's own error). */
  readonly events$: Observable<AguiEvent>;
  /** The initial history first, then a new immutable state after each source event that changes it. Completes when the source ends, also on failure: what was delivered stays. */
  readonly history$: Observable<ReasoningHistory>;
  /** Every warning (D-WARN), as it happens. Also delivered to `onWarning`. Completes with the source. */
  readonly warnings$: Observable<ReasoningWarning>;
  /** The latest history (the value `history$` would replay). */
  readonly history: ReasoningHistory;
  /** Starts the source without subscribing `events$`; unsubscribe to stop it. */
  connect(): Subscription;
  /**
   * Where the pipeline stands, as a plain JSON snapshot for `resumeFrom` (`resumable(snapshot)`): before start, between two
   * source events (e.g. from a `history$` subscriber), after the source failed or was unsubscribed,
   * or after it completed — then the state from before the end of the source, so that a stream cut
   * mid-run (RUN_TRUNCATED) can be continued. Throws while an event is being processed (from an
   * `events$` or `warnings$` subscriber) and after the stream was rejected by a protocol error.
   */
  exportState(): PipelineSnapshot;
}

/**
 * The facade: upcastThinking → enforceSchema → expandChunks → verifyDiscipline → deriveHistory, run
 * as pure steps in one subscriber of `source` (the run: facade-run.ts); here, its three views and the
 * source's lifecycle.
 */
export function reasoningPipeline(
  source: Subscribable<unknown>,
  options?: ReasoningPipelineOptions,
): ReasoningPipeline {
  const run = new FacadeRun(optionsOf(options, "reasoningPipeline"));
  const { events, warnings, histories } = run;
  let started = false;
  // The one subscription of the source.
  let upstream: Unsubscribable | undefined;
  // Subscribers of events$/history$/warnings$ plus open connect() handles, after start.
  let refCount = 0;

  const start = (): void => {
    if (started) return;
    started = true;
    // Linked before the source starts, so an unsubscribe during a synchronous emission stops it at once.
    const linked = new Subscription();
    upstream = linked;
    subscribeWithin(linked, source, {
      next(value) {
        if (!run.done && !run.next(value)) linked.unsubscribe();
      },
      error(error) {
        if (!run.done) run.error(error);
      },
      complete() {
        if (!run.done) run.complete();
      },
    });
    // A synchronous source may have ended (or failed) inside subscribe().
    if (run.done) linked.unsubscribe();
  };

  const release = (): void => {
    refCount--;
    if (refCount === 0 && started && !run.done) {
      upstream?.unsubscribe();
      // Torn down: a later subscriber gets a defined end, not silence (issue 12, finding 6) —
      // history$ the last history and completion, warnings$ completion, events$ an error saying why
      // (completing would report a run that was cut off as a success).
      run.letGo(new Error(ALREADY_RAN));
    }
  };

  const view = <T>(subject: Fanout<T>, starts: boolean): Observable<T> =>
    new Observable<T>((subscriber) => {
      refCount++;
      const inner = subject.subscribe(subscriber);
      // Registered before start(): a consumer that unsubscribes during a synchronous emission releases the source at once.
      subscriber.add(() => {
        inner.unsubscribe();
        release();
      });
      if (starts) start();
    });

  // history$: what a ReplaySubject(1) fed with every published history would do (without its
  // per-value buffer work). The subscriber joins the fanout first and then gets the last history (a
  // history published during that replay still reaches it, after the replayed one); once the
  // pipeline is done it gets the last history and completes.
  const historyView = new Observable<ReasoningHistory>((subscriber) => {
    refCount++;
    const ended = histories.ended;
    const inner = ended ? undefined : histories.subscribe(subscriber);
    subscriber.add(() => {
      inner?.unsubscribe();
      release();
    });
    subscriber.next(run.published);
    if (ended) subscriber.complete();
  });

  return {
    events$: view(events, true),
    history$: historyView,
    warnings$: view(warnings, false),
    get history() {
      return run.published;
    },
    connect() {
      refCount++;
      start();
      return new Subscription(release);
    },
    exportState: () => run.exportState(),
  };
}

/** What a subscriber of `events$` gets after the pipeline was torn down (every view unsubscribed). */
export const ALREADY_RAN =
  "agui-reasoning: this pipeline already ran: every subscriber unsubscribed, which stopped its source, and a pipeline runs its source once; " +
  "create a new pipeline (exportState() and resumeFrom continue where this one stopped)";
