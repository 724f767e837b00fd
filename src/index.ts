/**
 * agui-reasoning — RxJS operators for the reasoning events of the AG-UI 1.0 protocol.
 *
 * Stage order (R-PROC-12/13, R-STREAM-7, R-PROC-17):
 * upcastThinking → enforceSchema → expandChunks → verifyDiscipline → deriveHistory.
 */
export type { AguiEvent, ReasoningWarning, Stage, StepContext, StepResult, WarningOptions } from "./core/types";
export { ReasoningProtocolError, ERROR_CODES, isReasoningProtocolError, type ReasoningErrorCode } from "./core/errors";
export { stageOperator, runStage } from "./core/stage-operator";
export { formatWarning } from "./core/warnings";
export {
  WARNING_CODES,
  type ReasoningWarningCode,
  type WarningCodeInfo,
  type WarningRule,
  type Lossiness,
} from "./core/warning-codes";

export { upcastThinking, enforceSchema, expandChunks, verifyDiscipline, deriveHistory } from "./pipeline/operators";
export { createUpcastStage, type UpcastOptions } from "./upcast/upcast-thinking";
export { createEnforceStage } from "./schema/enforce-schema";
export { createExpandStage } from "./chunks/expand-chunks";
export { createVerifyStage, type VerifyOptions } from "./discipline/verify-discipline";
export { createHistoryStage, type HistoryOptions } from "./history/history-stage";
export { toRunInputMessages, type RunInputOptions } from "./history/run-input";
export { messagesOf } from "./history/messages-of";
export type { ReasoningHistory, IncompleteItem, IncompleteReason, ValueIssuer } from "./history/types";

export {
  reasoningPipeline,
  type ReasoningPipeline,
  type ReasoningPipelineOptions,
} from "./pipeline/reasoning-pipeline";

export { agentEvents, type RunnableAgent } from "./integration/agent-events";
export { TransportError } from "./integration/transport-end";
export {
  reasoningMiddleware,
  type ReasoningMiddleware,
  type ReasoningMiddlewareOptions,
  type NextAgent,
} from "./integration/http-agent-middleware";
export { bridgeAgent, type AgUiAgentSurface } from "./integration/bridge-agent";

// Resilience (docs/resilience.md): resume (the facade's exportState()/resumeFrom; the per-stage state
// codecs behind it are internal), repair, downgrade, storage.
export { SNAPSHOT_FORMAT, SNAPSHOT_VERSION, type PipelineSnapshot } from "./resume/pipeline-snapshot";
export {
  repairStream,
  createRepairStage,
  REPAIRED_TRUNCATION,
  type RepairOptions,
  type RepairState,
} from "./repair/repair-stream";
export {
  downcastToThinking,
  createDowncastStage,
  DowncastError,
  type DowncastOptions,
  type DowncastState,
} from "./downcast/downcast-thinking";
export {
  serializeHistory,
  parseHistory,
  historyToJSON,
  HISTORY_FORMAT,
  HISTORY_FORMAT_VERSION,
  type StoredHistory,
  type StoredIssuer,
} from "./storage/history-format";
export {
  saveHistory,
  type HistoryStore,
  type HistoryStoreCapabilities,
  type SaveHistoryOptions,
} from "./storage/history-store";
export { InMemoryHistoryStore, type InMemoryHistoryStoreOptions } from "./storage/in-memory-store";
