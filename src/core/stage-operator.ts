import type { OperatorFunction } from "rxjs";
import { ChainRunner } from "./chain-runner";
import { fusedOperator, stageLink } from "./fused-operators";
import type { ReasoningWarning, Stage, WarningOptions } from "./types";

/**
 * The one generic adapter: turns any `Stage` into an RxJS operator.
 *
 * Per subscription it keeps the stage's state and the source index, feeds each source value to
 * `step`, emits `out` in order, and delivers `warnings` to the sink *before* the outputs of the
 * same step (so a warning about an event is seen before the event it concerns). A thrown error
 * (a `ReasoningProtocolError`) becomes the error notification; everything emitted before stays
 * delivered. On source completion `finish` runs (it may emit or throw, e.g. RUN_TRUNCATED).
 *
 * Adjacent operators made by this adapter run fused, in one subscriber, with exactly the same
 * behaviour as one subscriber each (`FusedObservable`, fused-operators.ts).
 */
export function stageOperator<S, I, O>(stage: Stage<S, I, O>, options?: WarningOptions): OperatorFunction<I, O> {
  return fusedOperator(stageLink(stage, options));
}

/** Collects everything a stage does over an array, without RxJS (for tests, the CLI and the model checks), on the chain runner. */
export function runStage<S, I, O>(
  stage: Stage<S, I, O>,
  events: readonly I[],
): { out: O[]; warnings: ReasoningWarning[]; state: S; error?: unknown } {
  const out: O[] = [];
  const warnings: ReasoningWarning[] = [];
  const runner = new ChainRunner([{ stage, state: stage.init(), warn: (w) => warnings.push(w) }], (o) =>
    out.push(o as O),
  );
  const state = (): S => runner.states[0] as S;
  try {
    for (const e of events) runner.next(e);
    runner.complete();
  } catch (error) {
    return { out, warnings, state: state(), error };
  }
  return { out, warnings, state: state() };
}
