/**
 * `bridgeAgent`: a 1.0 `HttpAgent` handed to a chat-UI library that pins `@ag-ui/client` 0.0.5x
 * (assistant-ui, CopilotKit; docs/ui-libraries.md). Type level (compiled by `tsc` in `npm run
 * typecheck`: each `@ts-expect-error` fails the typecheck when the error it expects goes away) and at
 * run time. The examples' typecheck (examples/assistant-ui, examples/copilotkit) checks it against
 * the libraries' real types.
 */
import { HttpAgent } from "@ag-ui/client";
import { bridgeAgent, reasoningMiddleware, type AgUiAgentSurface } from "../../src";
import { useAgentServers } from "../support/sse-server";
import { THOUGHTS, turnOne } from "../support/turns";

/**
 * A stand-in for 0.0.5x's `AbstractAgent` as a library declares it: a class with a private member (so
 * no other class is assignable to it) whose `messages` use an older, narrower `Message` type.
 */
type OlderMessage = { id: string; role: "user" | "assistant"; content: string };
abstract class OlderAbstractAgent {
  private middlewares: unknown[] = [];
  threadId = "";
  messages: OlderMessage[] = [];
  state: Record<string, unknown> = {};
  abstract run(input: { threadId: string }): unknown;
  runAgent(_parameters?: { runId?: string }): Promise<unknown> {
    return Promise.resolve(this.middlewares);
  }
  connectAgent(): Promise<unknown> {
    return Promise.resolve();
  }
  abortRun(): void {}
  detachActiveRun(): Promise<void> {
    return Promise.resolve();
  }
  subscribe(_subscriber: object): { unsubscribe(): void } {
    return { unsubscribe() {} };
  }
  use(..._middlewares: unknown[]): this {
    return this;
  }
  clone(): unknown {
    return this;
  }
  addMessage(_message: OlderMessage): void {}
  addMessages(_messages: OlderMessage[]): void {}
  setMessages(_messages: OlderMessage[]): void {}
  setState(_state: Record<string, unknown>): void {}
}
/** What a library's entry point takes, e.g. `useAgUiRuntime({ agent })`. */
function libraryTakes(options: { agent: OlderAbstractAgent }): OlderAbstractAgent {
  return options.agent;
}
/** And CopilotKit's `selfManagedAgents={{ default: agent }}`. */
function libraryTakesRecord(agents: Record<string, OlderAbstractAgent>): OlderAbstractAgent | undefined {
  return agents.default;
}

const serve = useAgentServers();

describe("bridgeAgent: a 1.0 HttpAgent for a UI library that pins @ag-ui/client 0.0.5x", () => {
  it("bridgeAgent: types: the library's agent type is inferred from where the result goes; a non-agent on either side is a type error", () => {
    const agent = new HttpAgent({ url: "http://127.0.0.1:1/agent" });
    const tryIt = (f: () => unknown): unknown => {
      try {
        return f();
      } catch (error) {
        return error;
      }
    };

    // @ts-expect-error -- the error the helper exists for: 1.0's HttpAgent is not the older copy's AbstractAgent.
    tryIt(() => libraryTakes({ agent }));
    const typed: OlderAbstractAgent = libraryTakes({ agent: bridgeAgent(agent) });
    const inRecord = libraryTakesRecord({ default: bridgeAgent(agent) });
    // Without a place to go, the result is the common surface, not `any`.
    const plain = bridgeAgent(agent);
    // @ts-expect-error -- the surface has no `url`: nothing is invented.
    tryIt(() => plain.url);
    // @ts-expect-error -- the argument must be an agent.
    tryIt(() => bridgeAgent({ threadId: "t" }));
    // @ts-expect-error -- and so must the target: it is not a way to cast an agent to anything.
    tryIt((): string => bridgeAgent(agent));
    const surface: AgUiAgentSurface = agent;

    expect(typed).toBe(agent);
    expect(inRecord).toBe(agent);
    expect(plain).toBe(surface);
  });

  it("bridgeAgent: it returns the very agent, so the library runs the one the middleware is installed on", async () => {
    const server = await serve([{ events: turnOne }]);
    const middleware = reasoningMiddleware({ producer: server.url, onWarning: () => {} });
    const agent = new HttpAgent({ url: server.url, threadId: "thread-1" });
    agent.use(middleware);

    const forLibrary: OlderAbstractAgent = bridgeAgent(agent);
    expect(forLibrary).toBe(agent);
    await forLibrary.runAgent({ runId: "run-1" });

    expect(server.requests).toHaveLength(1);
    expect(middleware.history?.messages.find((m) => m.role === "reasoning")?.content).toBe(THOUGHTS.join(""));
  });

  it("bridgeAgent: something that is not an agent gets a TypeError naming the missing methods, also when a getter throws", () => {
    const agent = new HttpAgent({ url: "http://127.0.0.1:1/agent" });
    const noRunAgent = new Proxy(agent, {
      get: (target, key, receiver) =>
        key === "runAgent" ? undefined : (Reflect.get(target, key, receiver) as unknown),
    });
    const throwing = new Proxy(agent, {
      get: (target, key, receiver) => {
        if (key === "subscribe" || key === "use") throw new Error("hostile getter");
        return Reflect.get(target, key, receiver) as unknown;
      },
    });

    expect(() => bridgeAgent(noRunAgent)).toThrow(
      new TypeError(
        "bridgeAgent: expected an AG-UI agent (an @ag-ui/client AbstractAgent such as HttpAgent); missing method runAgent",
      ),
    );
    expect(() => bridgeAgent(throwing)).toThrow(/; missing methods subscribe, use$/);
    expect(() => bridgeAgent(null as unknown as AgUiAgentSurface)).toThrow(
      /missing methods run, runAgent, connectAgent, abortRun,/,
    );
    expect(() => bridgeAgent({ threadId: "t" } as unknown as AgUiAgentSurface)).toThrow(TypeError);
  });
});
