/**
 * agui-reasoning — RxJS operators for the reasoning events of the AG-UI 1.0 protocol: what an app
 * needs (docs/api.md). The step contract is `agui-reasoning/stages`; resume, repair and downgrade are
 * `agui-reasoning/resilience`; the test kit is `agui-reasoning/testing`.
 *
 * Stage order (R-PROC-12/13, R-STREAM-7, R-PROC-17):
 * upcastThinking → enforceSchema → expandChunks → verifyDiscipline → deriveHistory.
 */
export {
  reasoningPipeline,
  type ReasoningPipeline,
  type ReasoningPipelineOptions,
} from "./pipeline/reasoning-pipeline";

export { upcastThinking, enforceSchema, expandChunks, verifyDiscipline, deriveHistory } from "./pipeline/operators";
export type { UpcastOptions } from "./upcast/upcast-thinking";
export type { VerifyOptions } from "./discipline/verify-discipline";
export type { HistoryOptions } from "./history/history-stage";

export { agentEvents, type RunnableAgent } from "./integration/agent-events";
export { TransportError } from "./integration/transport-end";
export {
  reasoningMiddleware,
  type ReasoningMiddleware,
  type ReasoningMiddlewareOptions,
  type NextAgent,
  type SavedThread,
  type ThreadOfHistory,
} from "./integration/http-agent-middleware";
export { bridgeAgent, type AgUiAgentSurface } from "./integration/bridge-agent";

export { toRunInputMessages, type RunInputOptions } from "./history/run-input";
export { messagesOf } from "./history/messages-of";
export { emptyHistory } from "./history/empty-history";
export type {
  ReasoningHistory,
  IncompleteItem,
  IncompleteReason,
  ValueIssuer,
  ReasoningDuration,
} from "./history/types";
export {
  reasoningView,
  type ReasoningView,
  type ReasoningViewOptions,
  type TurnView,
  type ReasoningGroup,
  type ReasoningBlock,
} from "./view/reasoning-view";

export type { AguiEvent, ReasoningWarning, WarningOptions } from "./core/types";
export { ReasoningProtocolError, ERROR_CODES, isReasoningProtocolError, type ReasoningErrorCode } from "./core/errors";
export { formatWarning } from "./core/warnings";
export {
  WARNING_CODES,
  type ReasoningWarningCode,
  type WarningCodeInfo,
  type WarningRule,
  type Lossiness,
} from "./core/warning-codes";

// Storage (docs/resilience.md#storage; issue 25 may move it behind its own subpath).
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
