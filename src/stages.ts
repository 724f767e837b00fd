/**
 * agui-reasoning/stages — the step contract (docs/stages.md): every operator of the package is a pure
 * step `(state, event, ctx) → { state, out, warnings }`. `createXStage` builds a stage, `stageOperator`
 * turns any stage into an RxJS operator, `runStage` runs one over an array without RxJS. For tests,
 * tools and custom runners; an app needs the operators and the facade of `agui-reasoning` only.
 */
export type { Stage, StepContext, StepResult } from "./core/types";
export { stageOperator, runStage } from "./core/stage-operator";

export { createUpcastStage, type UpcastState } from "./upcast/upcast-thinking";
export { createEnforceStage, type EnforceState } from "./schema/enforce-schema";
export { createExpandStage, type ExpandState, type OpenStream } from "./chunks/expand-chunks";
export { createVerifyStage, type VerifyState } from "./discipline/verify-discipline";
export { createHistoryStage, type HistoryState } from "./history/history-stage";
export { createRepairStage, type RepairState } from "./repair/repair-stream";
export { createDowncastStage, type DowncastState } from "./downcast/downcast-thinking";
