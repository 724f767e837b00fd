import type { OperatorFunction } from "rxjs";
import { fusedOperator, type LanePlanner, type OperatorRole } from "./fused-operators";
import { NONE, result } from "./types";
import type { ReasoningWarning, Stage, StepResult, WarningOptions } from "./types";

/**
 * A projection hook for `stageOperator`: one stage, different views of
 * what it does. Instead of the stage's `out`, the operator emits what `project` derives from each
 * step — e.g. the new state when it changed — plus, on subscribe, what `start` derives from the
 * fresh state; `keepWarning` picks which of the stage's warnings this view reports.
 */
export interface StageProjection<S, O, P> {
  /** Emitted on subscribe, before any source value, from the state the steps will start from. */
  readonly start?: (state: S) => readonly P[];
  /** Emitted after each step (and after `finish`), from the states before and after it and its `out`. */
  readonly project: (before: S, after: S, out: readonly O[]) => readonly P[];
  /** Which warnings this view delivers (default: all). */
  readonly keepWarning?: (warning: ReasoningWarning) => boolean;
}

/**
 * `stageOperator` over a projected stage. Per subscription the stage's state is created once and
 * shared by `start` and the steps; `start`'s values are emitted on subscribe, before the source is
 * subscribed. Fuses with adjacent stage operators like `stageOperator` (fused-operators.ts); `role`
 * and `planner` let a chain of the package's operators take the delta lane.
 */
export function projectedStageOperator<S, I, O, P>(
  stage: Stage<S, I, O>,
  projection: StageProjection<S, O, P>,
  options?: WarningOptions,
  role?: OperatorRole,
  planner?: LanePlanner,
): OperatorFunction<I, P> {
  return fusedOperator({
    open: () => {
      const first = stage.init();
      return {
        stage: projectStage(stage, projection, first),
        state: first,
        start: projection.start ? projection.start(first) : NONE,
      };
    },
    options,
    ...(role && { role }),
    ...(planner && { planner }),
  });
}

/** The stage whose `out` is the projection of `stage`'s steps (its init returns `first`). */
export function projectStage<S, I, O, P>(
  stage: Stage<S, I, O>,
  projection: StageProjection<S, O, P>,
  first: S,
): Stage<S, I, P> {
  const view = (before: S, r: StepResult<S, O>): StepResult<S, P> => {
    const keep = projection.keepWarning;
    const warnings = keep === undefined || r.warnings.length === 0 ? r.warnings : r.warnings.filter(keep);
    return result(r.state, projection.project(before, r.state, r.out), warnings.length === 0 ? NONE : warnings);
  };
  // eslint-disable-next-line @typescript-eslint/unbound-method -- called below with `stage` as `this`
  const finish = stage.finish;
  return {
    name: stage.name,
    init: () => first,
    step: (state, event, ctx) => view(state, stage.step(state, event, ctx)),
    ...(finish && { finish: (state: S, ctx: { index: number }) => view(state, finish.call(stage, state, ctx)) }),
  };
}
