/**
 * The HTTP test server is the testing kit's `mockAgentServer` (src/testing/mock-agent-server.ts): one
 * implementation, used by `npm start`, by the integration and conformance tests, and by integrators.
 * The names here are the ones these tests were written with.
 */
import {
  mockAgentServer as startAgentServer,
  type MockAgentServer as AgentServer,
} from "../../src/testing/mock-agent-server";
export {
  mockAgentServer as startAgentServer,
  type MockAgentServer as AgentServer,
  type ServerScript as AgentScript,
  type ServerTurnOptions as AgentTurn,
  type RecordedRequest,
  type ResponseEnd,
} from "../../src/testing/mock-agent-server";

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
