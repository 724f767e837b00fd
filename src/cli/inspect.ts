/**
 * The check's fold of a stream, shared by the command and `toBeConformant` (one truth, D-PATHS): the
 * pipeline run over the source, the report per run, the lint rules and the verdict.
 */
import type { Message } from "@ag-ui/core";
import { Subscription, from, type Observer, type Subscribable } from "rxjs";
import { ReasoningProtocolError } from "../core/errors";
import { rawType } from "../core/json";
import type { AguiEvent, ReasoningWarning } from "../core/types";
import type { ReasoningHistory } from "../history/types";
import { reasoningPipeline, type ReasoningPipelineOptions } from "../pipeline/reasoning-pipeline";
import { Linter } from "./lint-rules";
import { countHistory, type CheckOutcome } from "./outcome";
import { StreamSecrets } from "./redact";
import { ReportBuilder } from "./run-report";
import { SourceTrail } from "./source-trail";
import { checkFailure, protocolFailure, type Gates } from "./verdict";

/** What `inspectEvents` is asked: the check's gates, and the run input's messages. */
export interface InspectOptions extends Gates {
  readonly initialMessages?: readonly Message[];
}

/**
 * `agui-reasoning check` over an array of events, synchronously, for `toBeConformant` in a producer's
 * own tests. An error that is not a protocol violation (a source error) is thrown as it is.
 */
export function inspectEvents(events: readonly unknown[], options: InspectOptions = {}): CheckOutcome {
  const { initialMessages } = options;
  const source: Source = {
    label: "events",
    events$: from(events),
    initialMessages,
    drain: true,
    format: () => undefined,
    lineOf: () => undefined,
    ended: () => [],
  };
  const inspection = new Inspection(source, {});
  let run: PipelineRun | undefined;
  inspection.run({ producer: "agui-reasoning/testing" }, (r) => (run = r));
  if (run === undefined) throw new Error("agui-reasoning/testing: toBeConformant needs events that end synchronously");
  // eslint-disable-next-line @typescript-eslint/only-throw-error -- the source's own error, passed on as it is
  if (run.failure !== undefined && !(run.failure instanceof ReasoningProtocolError)) throw run.failure;
  return inspection.outcome(run, options);
}

/** Where the events come from. */
export interface Source {
  /** What is read: a path, `stdin` or a URL. */
  readonly label: string;
  readonly events$: Subscribable<unknown>;
  readonly initialMessages?: readonly Message[];
  /** A file is read to its end after a failure, to count its events; a live stream is not. */
  readonly drain: boolean;
  /** The input format (`JSON Lines`, `SSE`, …), once known. */
  format(): string | undefined;
  /** Line where source event `index` starts (JSON Lines, SSE), when known. */
  lineOf(index: number): number | undefined;
  /**
   * Called once the pipeline read `events` source events and the stream did not fail otherwise: what
   * reading found beyond the events (R-TRANS-2: a recording cut inside an event, a broken connection).
   */
  ended(events: number): ReasoningWarning[];
}

/** What the check keeps of a stream besides its report. */
interface InspectionOptions {
  /** Every encrypted value is listed with its value (`--show-values`); else the first few, without it. */
  readonly keepAllValues?: boolean;
  /** Every warning and every validated event (`--json` prints them all; else counts, constant memory). */
  readonly keepAll?: boolean;
  /** The stream's secrets and its deepest event (only output that prints events or messages needs them). */
  readonly prints?: boolean;
  /** Called with the count of source events read. */
  readonly onRead?: (read: number) => void;
}

/** Everything the check observes of one source, folded as it is read. */
export class Inspection {
  private readonly report: ReportBuilder;
  readonly secrets: StreamSecrets | undefined;
  /** The most deeply nested source event once one nests, kept with the secrets: output that cannot be printed names it. */
  deepest: { readonly index: number; readonly depth: number } | undefined;
  readonly events: AguiEvent[] | undefined;
  private readonly warnings: ReasoningWarning[] | undefined;
  private readonly trail = new SourceTrail();
  private readonly linter: Linter;

  constructor(
    private readonly source: Source,
    private readonly options: InspectionOptions,
  ) {
    this.report = new ReportBuilder(options.keepAllValues);
    this.secrets = options.prints ? new StreamSecrets() : undefined;
    this.events = options.keepAll ? [] : undefined;
    this.warnings = options.keepAll ? [] : undefined;
    this.linter = new Linter(source.initialMessages ?? [], (w) => this.warning(w));
  }

  /** A raw source event, before the pipeline processes it; its `rawType` is read once for every observer (issue 22). */
  private onSource(raw: unknown, index: number): void {
    const type = rawType(raw);
    this.trail.observe(raw, type);
    this.report.onSourceEvent(raw, type);
    this.linter.onSource(raw, index, type);
    const depth = this.secrets?.collect(raw) ?? 0;
    if (depth > (this.deepest?.depth ?? 0)) this.deepest = { index, depth };
    this.options.onRead?.(index + 1);
  }

  /** A validated event delivered by `events$`. */
  private onEvent(event: AguiEvent): void {
    this.report.onEvent(event);
    this.linter.onEvent(event);
    this.secrets?.assemble(event);
    this.events?.push(event);
  }

  private warning(warning: ReasoningWarning): void {
    this.warnings?.push(warning);
    this.report.onWarning(warning);
  }

  /**
   * Runs the source through the pipeline and calls `done` once it ended. The source feeds the pipeline
   * itself so that, after a failure, a file is still read to its end (`drain`): the report counts the
   * file's events, not those read before the violation. A live stream is closed at the failure instead.
   */
  run(pipelineOptions: ReasoningPipelineOptions, done: (run: PipelineRun) => void): void {
    const { events$, drain, initialMessages } = this.source;
    let read = 0;
    let total = 0;
    // The pipeline's source: what a Subject piped through a tap of `onSource` would be, without
    // their cost per event (a closure and an iterator per value, two subscribers deep). The pipeline
    // subscribes it once; once it let go (it failed), the rest of the file is only counted.
    let pipelineSide: Partial<Observer<unknown>> | undefined;
    const feed: Subscribable<unknown> = {
      subscribe(observer) {
        pipelineSide = observer;
        return { unsubscribe: () => (pipelineSide = undefined) };
      },
    };
    const pipeline = reasoningPipeline(feed, { ...pipelineOptions, initialMessages, onWarning: () => {} });
    // Paced (D-PACE) and listened to — an unheard history$ publishes at once, having nobody to wait for —
    // the delta lane holds a message's text until a run ends instead of making a conversation version per
    // delta (a fifth of what `check` allocated, issue 22); the final history is the one an unpaced pipeline gives.
    // eslint-disable-next-line rxjs-x/no-ignored-subscription -- history$ completes with events$
    if (pipelineOptions.historyPace !== undefined) pipeline.history$.subscribe(() => {});
    // eslint-disable-next-line rxjs-x/no-ignored-subscription -- warnings$ completes with events$
    pipeline.warnings$.subscribe((w) => this.warning(w));

    let ended: { failure: unknown } | undefined;
    let sourceEnded: boolean | undefined;
    // Added once subscribed: a stop before that (a synchronous source) unsubscribes it on arrival.
    const reading = new Subscription();
    const settle = (): void => {
      if (ended === undefined) return;
      const { failure } = ended;
      const history = pipeline.history;
      if (failure === undefined) done({ failure, read, total, totalKnown: true, history });
      else if (!drain) {
        reading.unsubscribe();
        done({ failure, read, total: read, totalKnown: false, history });
      } else if (sourceEnded !== undefined) done({ failure, read, total, totalKnown: sourceEnded, history });
      else return;
      ended = undefined;
    };
    // eslint-disable-next-line rxjs-x/no-ignored-subscription -- held until the pipeline ends: the check reads it all
    pipeline.events$.subscribe({
      next: (e) => this.onEvent(e),
      error: (failure: unknown) => {
        ended = { failure };
        settle();
      },
      complete: () => {
        ended = { failure: undefined };
        settle();
      },
    });
    const sourceEnd = (completed: boolean, error?: unknown): void => {
      const side = pipelineSide;
      pipelineSide = undefined;
      if (completed) side?.complete?.();
      else side?.error?.(error);
      sourceEnded = completed;
      settle();
    };
    reading.add(
      events$.subscribe({
        next: (e) => {
          total++;
          if (pipelineSide === undefined) return;
          this.onSource(e, read++);
          pipelineSide.next?.(e);
        },
        error: (e: unknown) => sourceEnd(false, e),
        complete: () => sourceEnd(true),
      }),
    );
  }

  /** The outcome once the pipeline ended with `run.failure`, a protocol error or none: its verdict, or the gates'. */
  outcome(run: PipelineRun, gates: Gates): CheckOutcome {
    const source = this.source;
    const error = run.failure as ReasoningProtocolError | undefined;
    const more = source.ended(run.read);
    this.secrets?.flush();
    // A run cut short is still linted to its end; after a violation the stream is not read further.
    if (error === undefined || error.code === "RUN_TRUNCATED") this.linter.end();
    if (error) this.report.onFailure(error.code);
    for (const w of more) this.warning(w);
    const runs = this.report.all();
    const lineOf = (index: number): number | undefined => source.lineOf(index);
    const outcome: CheckOutcome = {
      label: source.label,
      format: source.format(),
      lineOf,
      totalEvents: run.total,
      totalKnown: run.totalKnown,
      runs,
      failure: error ? protocolFailure(error, this.trail, lineOf) : undefined,
      warnings: runs.reduce((n, r) => n + r.warnings, 0),
      allWarnings: this.warnings,
      history: run.history,
      historyCounts: countHistory(run.history),
    };
    return { ...outcome, failure: outcome.failure ?? checkFailure(outcome, gates) };
  }
}

/** What the pipeline made of a source: how it ended, how many events there were, the final history. */
export interface PipelineRun {
  /** The error `events$` ended with, or `undefined` when it completed. */
  readonly failure: unknown;
  /** Source events the pipeline read. */
  readonly read: number;
  /** Source events in the input: for a file read to its end after a failure, else those read. */
  readonly total: number;
  /** Whether `total` counts the whole input. */
  readonly totalKnown: boolean;
  readonly history: ReasoningHistory;
}
