/**
 * The HTTP test server is the demo's agent server (examples/agent-server.ts): one implementation,
 * used by `npm start` and by the integration and conformance tests alike.
 */
export {
  startAgentServer,
  sseFrame,
  cutPoints,
  type AgentServer,
  type AgentScript,
  type AgentTurn,
  type RecordedRequest,
  type ResponseEnd,
} from "../../examples/agent-server";
