import type { OperatorFunction } from "rxjs";
import { ChainRunner } from "./chain-runner";
import { fusedOperator, stageLink } from "./fused-operators";
import { optionsOf } from "./arguments";
import type { ReasoningWarning, Stage, WarningOptions } from "./types";

/**
 * The one generic adapter: any `Stage` as an RxJS operator. Per subscription it steps a fresh state
 * over the source, emits `out` in order after the step's `warnings` went to the sink (a warning about
 * an event comes before the event), makes a thrown error the error notification (what was emitted
 * stays) and runs `finish` on completion (it may emit or throw, e.g. RUN_TRUNCATED). Adjacent
 * operators made by it run fused, in one subscriber, as one subscriber each would (fused-operators.ts).
 */
export function stageOperator<S, I, O>(stage: Stage<S, I, O>, options?: WarningOptions): OperatorFunction<I, O> {
  return fusedOperator(stageLink(stage, optionsOf(options, "stageOperator")));
}

/** Collects everything a stage does over an array, without RxJS (for tests, the CLI and the model checks), on the chain runner. */
export function runStage<S, I, O>(
  stage: Stage<S, I, O>,
  events: readonly I[],
): { out: O[]; warnings: ReasoningWarning[]; state: S; error?: unknown } {
  if (typeof stage?.init !== "function" || typeof stage.step !== "function") {
    throw new TypeError("agui-reasoning: runStage expects a stage (an object with init() and step())");
  }
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
