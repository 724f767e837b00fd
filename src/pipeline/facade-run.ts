import { ChainRunner, isTruncation } from "../core/chain-runner";
import { isReasoningProtocolError } from "../core/errors";
import type { AguiEvent, ReasoningWarning } from "../core/types";
import { warningSink } from "../core/warnings";
import { createUpcastStage, type UpcastState } from "../upcast/upcast-thinking";
import { createEnforceStage } from "../schema/enforce-schema";
import { createExpandStage } from "../chunks/expand-chunks";
import type { ExpandState } from "../chunks/lanes";
import { createVerifyStage } from "../discipline/verify-discipline";
import type { VerifyState } from "../discipline/verify-state";
import { createHistoryStage, type HistoryState } from "../history/history-stage";
import { maxContentLengthOf } from "../history/content-limit";
import type { Conversation } from "../history/conversation";
import type { ReasoningHistory } from "../history/types";
import {
  exportPipelineState,
  type FacadeStages,
  type FacadeStates,
  type PipelineSnapshot,
  type ResumePoint,
} from "../resume/pipeline-snapshot";
import { resumePoint } from "../resume/resumable";
import { historyLane } from "./delta-lane";
import { Fanout } from "./fanout";
import { PacedHistory } from "./paced-history";
import { endsRun, pacingOf } from "./paced-publisher";
import type { ReasoningPipelineOptions } from "./reasoning-pipeline";

const HISTORY = 4;

/**
 * One run of the facade's five stages on the chain runner, and what it publishes: `events` (the
 * chain's output), `warnings` (every link's, also to `onWarning`) and `histories` (the history
 * after each source event that changed it: the runner's hook after each source event). It is the
 * source's observer; the views and the source's lifecycle are reasoning-pipeline.ts's.
 */
export class FacadeRun {
  // Fanouts rather than Subjects, for the per-value cost (fanout.ts).
  readonly events = new Fanout<AguiEvent>();
  readonly warnings = new Fanout<ReasoningWarning>();
  readonly histories = new Fanout<ReasoningHistory>();
  // The last history published (identity decides "changed"); or, while `histories` has no
  // subscriber, the history state it is to be read from when asked (building the history object of
  // every version nobody reads cost a third of `check`'s pipeline time, issue 22).
  #published: ReasoningHistory;
  #unread: HistoryState | undefined;
  /** The source ended, failed, or was let go. */
  done = false;
  readonly #runner: ChainRunner;
  // D-PACE: with `historyPace`, the cadence `history$` is published at; without, after every change.
  readonly #paced: PacedHistory | undefined;
  // D-PACE: a RUN_FINISHED or RUN_ERROR held until the end of its source event.
  #ending: AguiEvent | undefined;
  // Set when the stream was rejected mid-event: its states cannot be exported any more.
  #rejection: { error: unknown } | undefined;
  // The states as they were when the source ended, before the stages' `finish` changed them.
  #beforeFinish: FacadeStates | undefined;

  readonly #options: ReasoningPipelineOptions;

  constructor(options: ReasoningPipelineOptions) {
    this.#options = options;
    const resume = resumePointOf(options);
    // Validated here first, so that a bad bound names the facade; the history stage holds the same one.
    const maxContentLength = maxContentLengthOf(options.maxContentLength, "reasoningPipeline");
    const pacing = pacingOf(options, "reasoningPipeline");
    // The history stage checks the seed, so it reads it first: an unreadable one is named as such.
    const history = createHistoryStage(options);
    // The history stage's first state, the runner's too (unless resumed): another `init` would index the seed again (O(n)).
    const seeded = history.init();
    const fresh: FacadeStages = [
      createUpcastStage(options),
      createEnforceStage(options),
      createExpandStage(options),
      // The seed's roles from the history stage's own copy: the caller's objects are read once, by it.
      createVerifyStage({ ...options, initialMessages: seeded.history.messages }),
      history,
    ];
    const stages = resume === undefined ? fresh : resume.resume(fresh);
    const sink = warningSink(options, () => this.warnings.observed);
    const warn = (w: ReasoningWarning): void => {
      sink(w);
      this.warnings.next(w);
    };
    const emit =
      pacing === undefined
        ? (e: unknown): void => this.events.next(e as AguiEvent)
        : (e: unknown): void => {
            this.#release();
            // D-PACE: the history a run ended with is out before the run's end is — both after the
            // source event, as unpaced, so that a history$ subscriber may call exportState() then.
            if (endsRun(e)) this.#ending = e as AguiEvent;
            else this.events.next(e as AguiEvent);
          };
    this.#runner = new ChainRunner(
      stages.map((stage) => ({ stage, state: stage === history ? seeded : stage.init(), warn })),
      emit,
      {
        firstIndex: resume?.index ?? 0,
        lane: historyLane(maxContentLength, true, pacing !== undefined),
        afterEvent:
          pacing === undefined
            ? () => this.#publish()
            : () => {
                this.#paced!.changed();
                this.#release();
              },
      },
    );
    this.#published = (this.#runner.states[HISTORY] as HistoryState).history;
    this.#paced =
      pacing &&
      new PacedHistory(
        () => this.#runner,
        HISTORY,
        this.#runner.states[HISTORY] as HistoryState,
        pacing,
        (state) => this.#publishState(state),
      );
  }

  /** The last history published on `histories` (what `history$` replays). */
  get published(): ReasoningHistory {
    const unread = this.#unread;
    if (unread !== undefined) {
      this.#unread = undefined;
      this.#published = unread.history;
    }
    return this.#published;
  }

  /** One source event; false when it rejected the stream (the source is to be let go). */
  next(value: unknown): boolean {
    try {
      this.#runner.next(value);
      return true;
    } catch (error) {
      this.#rejection = { error };
      this.#end({ error });
      return false;
    }
  }

  /** The source failed; a truncation (an upstream RUN_TRUNCATED) ends the stages as a completion would (D-PATHS). */
  error(error: unknown): void {
    if (isTruncation(error)) this.complete({ error });
    else this.#end({ error });
  }

  complete(upstream?: { readonly error: unknown }): void {
    // The states whole (a paced chain's lanes hold text, D-PACE), as the snapshot will read them.
    this.#runner.settle();
    // The states before the stages' `finish` (a sealed history version never changes: keeping it is enough).
    (this.#runner.states[HISTORY] as Conversation).seal();
    this.#beforeFinish = this.#states();
    try {
      this.#runner.complete(upstream);
    } catch (error) {
      this.#end({ error });
      return;
    }
    this.#end();
  }

  /** Every view unsubscribed: the run stops, and a later subscriber gets a defined end. */
  letGo(error: Error): void {
    this.#end({ error }, false);
  }

  exportState(): PipelineSnapshot {
    if (this.#runner.busy) {
      throw new Error(
        "agui-reasoning: exportState() was called while the pipeline was processing a source event (or the end of the source); " +
          "call it between events, e.g. from a history$ subscriber",
      );
    }
    if (this.#rejection !== undefined) {
      throw new Error(
        `agui-reasoning: exportState(): the stream was rejected (${describeRejection(this.#rejection.error)}); a rejected stream cannot be resumed`,
      );
    }
    if (!this.done) {
      // D-PACE: the snapshot holds what was published (and the lanes' text is in the states).
      this.#runner.settle();
      this.#paced?.flush();
    }
    return exportPipelineState(this.#beforeFinish ?? this.#states(), this.#runner.count, this.#options.producer);
  }

  /** The run ends; unless let go (`flush` false: nobody listens), what is pending is published first. */
  #end(error?: { error: unknown }, flush = true): void {
    this.done = true;
    this.#runner.stop();
    if (!flush) this.#paced?.dispose();
    else if (this.#paced === undefined) this.#publish();
    else this.#paced.close();
    this.histories.complete();
    this.warnings.complete();
    if (error) this.events.error(error.error);
    else this.events.complete();
  }

  /** D-PACE: a held run end goes out, the pending history first (nothing follows a run's end, but order is kept). */
  #release(): void {
    const ending = this.#ending;
    if (ending === undefined) return;
    this.#ending = undefined;
    this.#paced!.flush();
    this.events.next(ending);
  }

  #publish(): void {
    this.#publishState(this.#runner.states[HISTORY] as HistoryState);
  }

  /** Publishes `state`'s history; false when it was the one already out, or nobody listens (D-PACE: no window opens). */
  #publishState(state: HistoryState): boolean {
    if (!this.histories.observed) {
      this.#unread = state;
      return false;
    }
    const current = state.history;
    if (current === this.published) return false;
    this.#published = current;
    this.histories.next(current);
    return true;
  }

  #states(): FacadeStates {
    const s = this.#runner.states;
    return {
      upcast: s[0] as UpcastState,
      expand: s[2] as ExpandState,
      verify: s[3] as VerifyState,
      history: s[HISTORY] as HistoryState,
    };
  }
}

function resumePointOf(options: ReasoningPipelineOptions): ResumePoint | undefined {
  if (options.resumeFrom === undefined) return undefined;
  if (options.initialHistory !== undefined || options.initialMessages !== undefined) {
    throw new TypeError(
      "agui-reasoning: resumeFrom already holds the history; do not also give initialHistory or initialMessages",
    );
  }
  return resumePoint(options.resumeFrom, options.producer);
}

function describeRejection(error: unknown): string {
  if (isReasoningProtocolError(error)) return `${error.code} at event #${error.eventIndex}`;
  return error instanceof Error ? error.name : "a non-Error value was thrown";
}
