import { Observable, Subscription, type Subscribable, type Unsubscribable } from "rxjs";
import { isReasoningProtocolError } from "../core/errors";
import type { AguiEvent, ReasoningWarning } from "../core/types";
import { warningSink } from "../core/warnings";
import { subscribeWithin } from "../core/subscribe-within";
import { createUpcastStage, type UpcastOptions } from "../upcast/upcast-thinking";
import { createEnforceStage } from "../schema/enforce-schema";
import { createExpandStage } from "../chunks/expand-chunks";
import { createVerifyStage, type VerifyOptions } from "../discipline/verify-discipline";
import { createHistoryStage, type HistoryOptions, type HistoryState } from "../history/history-stage";
import type { ReasoningHistory } from "../history/types";
import type { Conversation } from "../history/conversation";
import { copyOpenSets, openSetsOf } from "../resume/history-codec";
import {
  exportPipelineState,
  readPipelineSnapshot,
  type FacadeStages,
  type FacadeStates,
  type PipelineSnapshot,
  type ResumePoint,
} from "../resume/pipeline-snapshot";
import type { UpcastState } from "../upcast/upcast-thinking";
import type { ExpandState } from "../chunks/lanes";
import type { VerifyState } from "../discipline/verify-state";
import { maxContentLengthOf } from "../history/content-limit";
import { DeltaLane, type LaneStates } from "./delta-lane";
import { Fanout } from "./fanout";
import { StageChain } from "./run-stages";

export interface ReasoningPipelineOptions extends UpcastOptions, VerifyOptions, HistoryOptions {
  /**
   * Continue where another pipeline stopped (its `exportState()`, possibly through JSON): every
   * stage starts from that state and source indexes continue from its `index`. Checked at creation
   * (a broken snapshot is a `TypeError`); it must have been exported for the same `producer`, and
   * it already holds the history, so `initialHistory`/`initialMessages` cannot be given with it.
   */
  resumeFrom?: PipelineSnapshot;
}

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
 * at most once; it is not restarted. A subscriber that comes after that teardown gets a defined end:
 * `history$` the last history and completion, `warnings$` completion, and `events$` an `Error` saying
 * the pipeline already ran (`ALREADY_RAN`). After the source ended, every view gives its end as usual.
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
   * Where the pipeline stands, as a plain JSON snapshot for `resumeFrom`: before start, between two
   * source events (e.g. from a `history$` subscriber), after the source failed or was unsubscribed,
   * or after it completed — then the state from before the end of the source, so that a stream cut
   * mid-run (RUN_TRUNCATED) can be continued. Throws while an event is being processed (from an
   * `events$` or `warnings$` subscriber) and after the stream was rejected by a protocol error.
   */
  exportState(): PipelineSnapshot;
}

/**
 * The facade: upcastThinking → enforceSchema → expandChunks → verifyDiscipline → routeEncryptedValues
 * → deriveHistory, run as pure steps in one subscriber of `source`.
 */
export function reasoningPipeline(
  source: Subscribable<unknown>,
  options: ReasoningPipelineOptions = {},
): ReasoningPipeline {
  // Fanouts rather than Subjects, for the per-value cost (fanout.ts). `history$` replays `published`
  // itself on subscribe (see `historyView`) rather than through a ReplaySubject(1), which pushes and
  // splices its buffer on every value, i.e. on every delta.
  const events = new Fanout<AguiEvent>();
  const warnings = new Fanout<ReasoningWarning>();
  const histories = new Fanout<ReasoningHistory>();
  const sink = warningSink(options, () => warnings.observed);

  const resume = resumePointOf(options);
  // Validated here first, so that a bad bound names the facade; the history stage holds the same one.
  const maxContentLength = maxContentLengthOf(options.maxContentLength, "reasoningPipeline");
  const historyStage = createHistoryStage(options);
  const stages: FacadeStages = [
    createUpcastStage(options),
    createEnforceStage(options),
    createExpandStage(options),
    createVerifyStage({ ...options, initialMessages: options.initialHistory?.messages ?? options.initialMessages }),
    historyStage,
  ];
  const chain = new StageChain(resume === undefined ? stages : resume.resume(stages), {
    emit: (e) => events.next(e as AguiEvent),
    warn: (w) => {
      sink(w);
      warnings.next(w);
    },
  });
  const historyIndex = chain.stages.length - 1;
  // The last history published on `history$` (identity decides "changed").
  let published = (chain.states[historyIndex] as HistoryState).history;
  const publishHistory = (): void => {
    const current = (chain.states[historyIndex] as HistoryState).history;
    if (current !== published) {
      published = current;
      histories.next(current);
    }
  };

  // Lifecycle: "idle" until started, then "running" until the source ends or is torn down.
  let phase: "idle" | "running" | "done" = "idle";
  // Index of the next source event (continues a resumed pipeline's count).
  let index = resume?.index ?? 0;
  // The chain is inside a source event (or the end of the source): its states are half-updated.
  let busy = false;
  // Set when the stream was rejected mid-event: its states cannot be exported any more.
  let rejection: { error: unknown } | undefined;
  // The states as they were when the source completed, before the stages' `finish` changed them.
  let beforeFinish: FacadeStates | undefined;
  const states = (): FacadeStates => ({
    upcast: chain.states[0] as UpcastState,
    expand: chain.states[2] as ExpandState,
    verify: chain.states[3] as VerifyState,
    history: chain.states[historyIndex] as HistoryState,
  });
  // The states `DeltaLane.arm` judges after every event the steps take: one object, refreshed before
  // each judgement (`arm` keeps none of it), rather than a `states()` per event.
  const judged: { -readonly [K in keyof LaneStates]: LaneStates[K] } = states();
  const laneStates = (): LaneStates => {
    judged.expand = chain.states[2] as ExpandState;
    judged.verify = chain.states[3] as VerifyState;
    judged.history = chain.states[historyIndex] as HistoryState;
    return judged;
  };
  // The delta lane armed by the last event the steps handled (delta-lane.ts), if any.
  let lane: DeltaLane | undefined;
  // The lane taken before `lane`, while only lanes were taken since (two items streaming in turns,
  // issue 13): a lane-taken delta changes nothing but its own item's text, so it stays valid.
  let spare: DeltaLane | undefined;
  // Source events being handled right now (more than one when a subscriber feeds the source
  // re-entrantly). The lane is taken and armed only at depth 0, where the states are whole.
  let depth = 0;
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

  // A lane-shaped delta: what the steps would do, without running them (delta-lane.ts).
  const takeLane = (taken: DeltaLane, event: AguiEvent, delta: string): void => {
    busy = true;
    depth++;
    try {
      index++;
      chain.states[historyIndex] = taken.append(chain.states[historyIndex] as Conversation, delta);
      events.next(taken.emitted(event));
    } finally {
      depth--;
      busy = false;
    }
    publishHistory();
  };

  const start = (): void => {
    if (phase !== "idle") return;
    phase = "running";
    // Linked before the source starts, so an unsubscribe during a synchronous emission stops it at once.
    const linked = new Subscription();
    upstream = linked;
    subscribeWithin(linked, source, {
      next(value) {
        if (phase !== "running") return;
        if (depth === 0) {
          if (lane !== undefined) {
            const delta = lane.deltaOf(value);
            if (delta !== undefined) {
              takeLane(lane, value as AguiEvent, delta);
              return;
            }
          }
          // While a lane is armed, another item's delta: its lane, kept or judged now on the states as
          // they are (`arm` judges the states, whichever event led to them). Both lanes are set before
          // the delta is taken: a re-entrant event taking the steps during its emission clears them.
          const other =
            spare ?? (lane !== undefined ? DeltaLane.arm(laneStates(), value, maxContentLength) : undefined);
          const delta = other?.deltaOf(value);
          if (delta !== undefined) {
            // A lane keeps its item's text: two lanes of one item (another type or tag) cannot both stay.
            spare = lane !== undefined && !lane.sameItem(other!) ? lane : undefined;
            lane = other;
            takeLane(other!, value as AguiEvent, delta);
            return;
          }
        }
        lane = undefined;
        spare = undefined;
        busy = true;
        depth++;
        try {
          chain.push(value, index++);
        } catch (error) {
          depth--;
          busy = false;
          rejection = { error };
          publishHistory();
          end({ error });
          upstream?.unsubscribe();
          return;
        }
        depth--;
        busy = false;
        if (depth === 0) lane = DeltaLane.arm(laneStates(), value, maxContentLength);
        publishHistory();
      },
      error(error) {
        if (phase === "running") end({ error });
      },
      complete() {
        if (phase !== "running") return;
        // The history's finish clears its open sets in place; the other stages' finish changes nothing.
        const current = states();
        beforeFinish = { ...current, historySets: copyOpenSets(openSetsOf(current.history)) };
        busy = true;
        try {
          chain.finish(index);
        } catch (error) {
          busy = false;
          end({ error });
          return;
        }
        busy = false;
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
      // Torn down: a later subscriber gets a defined end, not silence (issue 12, finding 6) —
      // history$ the last history and completion, warnings$ completion, events$ an error saying why
      // (completing would report a run that was cut off as a success).
      histories.complete();
      warnings.complete();
      events.error(new Error(ALREADY_RAN));
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

  // history$: what a ReplaySubject(1) fed with every `published` would do. The subscriber joins the
  // subject first and then gets `published` (a history published during that replay still reaches
  // it, after the replayed one); once the pipeline is done it gets `published` and completes.
  const historyView = new Observable<ReasoningHistory>((subscriber) => {
    refCount++;
    // Once history$ has completed, a late subscriber gets `published` and then the completion.
    const ended = histories.ended;
    const inner = ended ? undefined : histories.subscribe(subscriber);
    subscriber.add(() => {
      inner?.unsubscribe();
      release();
    });
    subscriber.next(published);
    if (ended) subscriber.complete();
  });

  return {
    events$: view(events, true),
    history$: historyView,
    warnings$: view(warnings, false),
    get history() {
      return published;
    },
    connect() {
      refCount++;
      start();
      return new Subscription(release);
    },
    exportState() {
      if (busy) {
        throw new Error(
          "agui-reasoning: exportState() was called while the pipeline was processing a source event (or the end of the source); " +
            "call it between events, e.g. from a history$ subscriber",
        );
      }
      if (rejection !== undefined) {
        throw new Error(
          `agui-reasoning: exportState(): the stream was rejected (${describeRejection(rejection.error)}); a rejected stream cannot be resumed`,
        );
      }
      return exportPipelineState(beforeFinish ?? states(), index, options.producer);
    },
  };
}

/** What a subscriber of `events$` gets after the pipeline was torn down (every view unsubscribed). */
export const ALREADY_RAN =
  "agui-reasoning: this pipeline already ran: every subscriber unsubscribed, which stopped its source, and a pipeline runs its source once; " +
  "create a new pipeline (exportState() and resumeFrom continue where this one stopped)";

function resumePointOf(options: ReasoningPipelineOptions): ResumePoint | undefined {
  if (options.resumeFrom === undefined) return undefined;
  if (options.initialHistory !== undefined || options.initialMessages !== undefined) {
    throw new TypeError(
      "agui-reasoning: resumeFrom already holds the history; do not also give initialHistory or initialMessages",
    );
  }
  return readPipelineSnapshot(options.resumeFrom, options.producer);
}

function describeRejection(error: unknown): string {
  if (isReasoningProtocolError(error)) return `${error.code} at event #${error.eventIndex}`;
  return error instanceof Error ? error.name : "a non-Error value was thrown";
}
