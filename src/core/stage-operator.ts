import { Observable, type OperatorFunction } from "rxjs";
import { subscribeWithin } from "./subscribe-within";
import type { ReasoningWarning, Stage, StepResult, WarningOptions } from "./types";
import { warningSink } from "./warnings";

/**
 * The one generic adapter: turns any `Stage` into an RxJS operator.
 *
 * Per subscription it keeps the stage's state and the source index, feeds each source value to
 * `step`, emits `out` in order, and delivers `warnings` to the sink *before* the outputs of the
 * same step (so a warning about an event is seen before the event it concerns). A thrown error
 * (a `ReasoningProtocolError`) becomes the error notification; everything emitted before stays
 * delivered. On source completion `finish` runs (it may emit or throw, e.g. RUN_TRUNCATED).
 */
export function stageOperator<S, I, O>(
  stage: Stage<S, I, O>,
  options?: WarningOptions,
): OperatorFunction<I, O> {
  return (source) =>
    new Observable<O>((subscriber) => {
      const warn = warningSink(options);
      // The stage's private state, threaded linearly through `step`.
      let state = stage.init();
      // Index of the next source value (ReasoningProtocolError.eventIndex).
      let index = 0;
      const deliver = (r: StepResult<S, O>): void => {
        state = r.state;
        for (const w of r.warnings) warn(w);
        for (const o of r.out) {
          subscriber.next(o);
          if (subscriber.closed) return;
        }
      };
      return subscribeWithin<I>(subscriber, source, {
        next(value) {
          let r: StepResult<S, O>;
          try {
            r = stage.step(state, value, { index: index++ });
          } catch (err) {
            subscriber.error(err);
            return;
          }
          deliver(r);
        },
        error(err) {
          subscriber.error(err);
        },
        complete() {
          if (stage.finish) {
            let r: StepResult<S, O>;
            try {
              r = stage.finish(state, { index });
            } catch (err) {
              subscriber.error(err);
              return;
            }
            deliver(r);
          }
          subscriber.complete();
        },
      });
    });
}

/** Collects everything a stage does over an array, without RxJS (for tests, the CLI and the model checks). */
export function runStage<S, I, O>(
  stage: Stage<S, I, O>,
  events: readonly I[],
): { out: O[]; warnings: ReasoningWarning[]; state: S; error?: unknown } {
  let state = stage.init();
  const out: O[] = [];
  const warnings: ReasoningWarning[] = [];
  let index = 0;
  try {
    for (const e of events) {
      const r = stage.step(state, e, { index: index++ });
      state = r.state;
      warnings.push(...r.warnings);
      out.push(...r.out);
    }
    if (stage.finish) {
      const r = stage.finish(state, { index });
      state = r.state;
      warnings.push(...r.warnings);
      out.push(...r.out);
    }
  } catch (error) {
    return { out, warnings, state, error };
  }
  return { out, warnings, state };
}
