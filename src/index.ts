/**
 * agui-reasoning — RxJS operators for the reasoning events of the AG-UI 1.0 protocol.
 *
 * Stage order (R-PROC-12/13, R-STREAM-7, R-PROC-17):
 * upcastThinking → enforceSchema → expandChunks → verifyDiscipline → routeEncryptedValues → deriveHistory.
 */
export type { AguiEvent, ReasoningWarning, Stage, StepContext, StepResult, WarningOptions } from "./core/types";
export { ReasoningProtocolError, ERROR_CODES, isReasoningProtocolError, type ReasoningErrorCode } from "./core/errors";
export { stageOperator, runStage } from "./core/stage-operator";
export { formatWarning } from "./core/warnings";

export { upcastThinking, createUpcastStage, type UpcastOptions } from "./upcast/upcast-thinking";
export { enforceSchema, createEnforceStage } from "./schema/enforce-schema";
export { expandChunks, createExpandStage } from "./chunks/expand-chunks";
export { verifyDiscipline, createVerifyStage, type VerifyOptions } from "./discipline/verify-discipline";
export { routeEncryptedValues, deriveHistory, createHistoryStage, type HistoryOptions } from "./history/history-stage";
export { toRunInputMessages, type RunInputOptions } from "./history/run-input";
export type { ReasoningHistory, IncompleteItem, IncompleteReason, ValueIssuer } from "./history/types";

export { reasoningPipeline, type ReasoningPipeline, type ReasoningPipelineOptions } from "./pipeline/reasoning-pipeline";

export { agentEvents, type RunnableAgent } from "./integration/agent-events";
export {
  reasoningMiddleware,
  type ReasoningMiddleware,
  type ReasoningMiddlewareOptions,
  type NextAgent,
} from "./integration/http-agent-middleware";
