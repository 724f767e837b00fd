/**
 * agui-reasoning/testing — the integrator kit: event and message builders, a marble alphabet and
 * helpers over RxJS's `TestScheduler`, a synchronous pipeline runner, a scripted mock agent, jest
 * matchers and recorded example streams. See docs/testing.md.
 */
export { ev, msg, historyOf, sequentialIds } from "./builders";
export { alphabet, extendAlphabet, type Alphabet } from "./alphabet";
export { createTestScheduler, collectWarnings } from "./marbles";
export {
  expectPipeline,
  parseDiagram,
  type PipelineDiagram,
  type PipelineHelpers,
  type PipelineViews,
} from "./expect-pipeline";
export { protocolErrorWith, warningWith, type ExpectedFailure, type ExpectedWarning } from "./asymmetric";
export type { AsymmetricMatcher } from "./deep-match";
export { runPipeline, TEST_PRODUCER, type PipelineRun } from "./run-pipeline";
export {
  mockAgent,
  MockAgent,
  type AgentMiddleware,
  type AgentScript,
  type AgentTurn,
  type MockAgentOptions,
  type MockRun,
  type MockRunParameters,
  type MockNextAgent,
} from "./mock-agent";
export { installReasoningMatchers, reasoningMatchers, type ConformanceOptions } from "./matchers";
export { loadRecording, parseRecording, recordingsDirectory, RECORDINGS, type RecordingName } from "./recordings";
export {
  mockAgentServer,
  type MockAgentServer,
  type MockAgentServerOptions,
  type RecordedRequest,
  type ResponseEnd,
  type ServerPage,
  type ServerScript,
  type ServerTurn,
  type ServerTurnOptions,
} from "./mock-agent-server";
export { returnedValues, type IssuedValue, type ReturnedValue } from "./returned-values";
