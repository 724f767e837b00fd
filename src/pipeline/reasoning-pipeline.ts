import { Observable, ReplaySubject, Subject, Subscription, type Subscribable, type Unsubscribable } from "rxjs";
import type { AguiEvent, ReasoningWarning } from "../core/types";
import { warningSink } from "../core/warnings";
import { createUpcastStage, type UpcastOptions } from "../upcast/upcast-thinking";
import { createEnforceStage } from "../schema/enforce-schema";
import { createExpandStage } from "../chunks/expand-chunks";
import { createVerifyStage, type VerifyOptions } from "../discipline/verify-discipline";
import { createHistoryStage, type HistoryOptions, type HistoryState } from "../history/history-stage";
import type { ReasoningHistory } from "../history/types";
import { StageChain } from "./run-stages";

export interface ReasoningPipelineOptions extends UpcastOptions, VerifyOptions, HistoryOptions {}

/**
 * The three views of one run of the pipeline over one subscription of the source.
 *
 * **When the source starts.** The source is subscribed once, when `events$` is first subscribed or
 * `connect()` is called, whichever comes first. Subscribe `history$` and `warnings$` before that
 * (or in the same marble diagram, declared before `events$`) to see every emission, even from a
 * synchronous source such as `from(array)`. `history$` replays its latest state to late subscribers,
 * so for history alone the order does not matter.
 *
 * **When it stops.** When the source terminates, or when every subscriber of the three streams (and
 * the `connect()` subscription) has unsubscribed — then the source is unsubscribed. (`HttpAgent.run()`
 * sends its request when called and does not abort it on unsubscribe; use `agentEvents(agent, input)`,
 * which starts the request on subscription and aborts it on unsubscribe.) A pipeline runs its source
 * at most once; it is not restarted.
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
}

/**
 * The facade: upcastThinking → enforceSchema → expandChunks → verifyDiscipline → routeEncryptedValues
 * → deriveHistory, run as pure steps in one subscriber of `source`.
 */
export function reasoningPipeline(source: Subscribable<unknown>, options: ReasoningPipelineOptions = {}): ReasoningPipeline {
  const events = new Subject<AguiEvent>();
  const warnings = new Subject<ReasoningWarning>();
  const histories = new ReplaySubject<ReasoningHistory>(1);
  const sink = warningSink(options);

  const historyStage = createHistoryStage(options);
  const chain = new StageChain(
    [createUpcastStage(options), createEnforceStage(options), createExpandStage(options), createVerifyStage({ ...options, initialMessages: options.initialHistory?.messages ?? options.initialMessages }), historyStage],
    {
      emit: (e) => events.next(e as AguiEvent),
      warn: (w) => {
        sink(w);
        warnings.next(w);
      },
    },
  );
  const historyIndex = chain.stages.length - 1;
  // The last history published on `history$` (identity decides "changed").
  let published = (chain.states[historyIndex] as HistoryState).history;
  histories.next(published);
  const publishHistory = (): void => {
    const current = (chain.states[historyIndex] as HistoryState).history;
    if (current !== published) {
      published = current;
      histories.next(current);
    }
  };

  // Lifecycle: "idle" until started, then "running" until the source ends or is torn down.
  let phase: "idle" | "running" | "done" = "idle";
  // The one subscription of the source.
  let upstream: Unsubscribable | undefined;
  // Subscribers of events$/history$/warnings$ plus open connect() handles, after start.
  let refCount = 0;

  const isDone = (): boolean => phase === "done";

  const end = (error?: { error: unknown }): void => {
    phase = "done";
    publishHistory();
    histories.complete();
    warnings.complete();
    if (error) events.error(error.error);
    else events.complete();
  };

  const start = (): void => {
    if (phase !== "idle") return;
    phase = "running";
    let index = 0;
    upstream = source.subscribe({
      next(value) {
        if (phase !== "running") return;
        try {
          chain.push(value, index++);
        } catch (error) {
          publishHistory();
          end({ error });
          upstream?.unsubscribe();
          return;
        }
        publishHistory();
      },
      error(error) {
        if (phase === "running") end({ error });
      },
      complete() {
        if (phase !== "running") return;
        try {
          chain.finish(index);
        } catch (error) {
          end({ error });
          return;
        }
        end();
      },
    });
    // A synchronous source may have ended (or failed) inside subscribe().
    if (isDone()) upstream.unsubscribe();
  };

  const release = (): void => {
    refCount--;
    if (refCount === 0 && phase === "running") {
      phase = "done";
      upstream?.unsubscribe();
    }
  };

  const view = <T>(subject: Subject<T>, starts: boolean): Observable<T> =>
    new Observable<T>((subscriber) => {
      refCount++;
      const inner = subject.subscribe(subscriber);
      if (starts) start();
      return () => {
        inner.unsubscribe();
        release();
      };
    });

  return {
    events$: view(events, true),
    history$: view(histories, false),
    warnings$: view(warnings, false),
    get history() {
      return published;
    },
    connect() {
      refCount++;
      start();
      return new Subscription(release);
    },
  };
}
