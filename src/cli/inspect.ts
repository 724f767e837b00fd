import type { Message } from "@ag-ui/core";
import { from, tap } from "rxjs";
import { ReasoningProtocolError } from "../core/errors";
import type { ReasoningWarning } from "../core/types";
import { reasoningPipeline } from "../pipeline/reasoning-pipeline";
import { Linter } from "./lint-rules";
import { countHistory, type CheckOutcome } from "./outcome";
import { ReportBuilder } from "./run-report";
import { SourceTrail } from "./source-trail";
import { rawType } from "../core/json";
import { checkFailure, protocolFailure, type Gates } from "./verdict";

/** What `inspectEvents` is asked: the check's gates, and the run input's messages. */
export interface InspectOptions extends Gates {
  /** The producer identity of encrypted values (default: a test producer). */
  readonly producer?: string;
  readonly initialMessages?: readonly Message[];
}

/**
 * `agui-reasoning check` over an array of events, synchronously: the same pipeline, report, lint
 * rules and verdict as the command (D-PATHS), for `toBeConformant` in a producer's own tests. An
 * error that is not a protocol violation (a source error) is thrown as it is.
 */
export function inspectEvents(events: readonly unknown[], options: InspectOptions = {}): CheckOutcome {
  const report = new ReportBuilder();
  const trail = new SourceTrail();
  const linter = new Linter(options.initialMessages ?? [], (w) => report.onWarning(w));
  let index = 0;
  // Each source event is seen before the pipeline processes it, as the command's feed does.
  const source = from(events).pipe(
    tap((raw) => {
      const type = rawType(raw);
      trail.observe(raw, type);
      report.onSourceEvent(raw, type);
      linter.onSource(raw, index++, type);
    }),
  );
  const pipeline = reasoningPipeline(source, {
    producer: options.producer ?? "agui-reasoning/testing",
    initialMessages: options.initialMessages,
    onWarning: () => {},
  });
  const warnings: ReasoningWarning[] = [];
  const subscription = pipeline.warnings$.subscribe((w) => {
    warnings.push(w);
    report.onWarning(w);
  });
  let failure: unknown;
  let ended = false;
  subscription.add(
    pipeline.events$.subscribe({
      next: (e) => {
        report.onEvent(e);
        linter.onEvent(e);
      },
      error: (e: unknown) => {
        failure = e;
        ended = true;
      },
      complete: () => {
        ended = true;
      },
    }),
  );
  subscription.unsubscribe();
  if (!ended) throw new Error("agui-reasoning/testing: toBeConformant needs events that end synchronously");
  // eslint-disable-next-line @typescript-eslint/only-throw-error -- the source's own error, passed on as it is
  if (failure !== undefined && !(failure instanceof ReasoningProtocolError)) throw failure;
  const error = failure;
  if (error === undefined || error.code === "RUN_TRUNCATED") linter.end();
  if (error) report.onFailure(error.code);
  const runs = report.all();
  const outcome: CheckOutcome = {
    label: "events",
    format: undefined,
    totalEvents: events.length,
    totalKnown: true,
    runs,
    failure: error ? protocolFailure(error, trail, () => undefined) : undefined,
    warnings: runs.reduce((n, run) => n + run.warnings, 0),
    allWarnings: warnings,
    history: pipeline.history,
    historyCounts: countHistory(pipeline.history),
    lineOf: () => undefined,
  };
  return { ...outcome, failure: outcome.failure ?? checkFailure(outcome, options) };
}
