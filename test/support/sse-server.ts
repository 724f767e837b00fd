/**
 * The HTTP test server is the demo's agent server (examples/agent-server.ts): one implementation,
 * used by `npm start` and by the integration and conformance tests alike.
 */
import { startAgentServer, type AgentServer } from "../../examples/agent-server";
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

/**
 * For a jest suite: a `serve(...)` that starts an agent server and closes every server it started
 * after each test.
 */
export function useAgentServers(): (...args: Parameters<typeof startAgentServer>) => Promise<AgentServer> {
  let servers: AgentServer[] = [];
  afterEach(async () => {
    await Promise.all(servers.map((s) => s.close()));
    servers = [];
  });
  return async (...args) => {
    const server = await startAgentServer(...args);
    servers.push(server);
    return server;
  };
}
