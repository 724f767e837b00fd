/**
 * The members of an AG-UI agent that chat-UI libraries drive: the public surface `AbstractAgent` has,
 * with the same meaning, in `@ag-ui/client` 0.0.5x (which assistant-ui and CopilotKit pin) and in 1.0.
 * Parameters are left open (`never[]`): the two copies type them differently (their `Message` unions
 * differ), and what matters here is that the member is there.
 */
export interface AgUiAgentSurface {
  threadId: string;
  messages: readonly unknown[];
  state: unknown;
  run(...args: never[]): unknown;
  runAgent(...args: never[]): Promise<unknown>;
  connectAgent(...args: never[]): Promise<unknown>;
  abortRun(): void;
  detachActiveRun(): Promise<void>;
  subscribe(...args: never[]): unknown;
  use(...args: never[]): unknown;
  clone(): unknown;
  addMessage(...args: never[]): void;
  addMessages(...args: never[]): void;
  setMessages(...args: never[]): void;
  setState(...args: never[]): void;
}

/** The methods a chat-UI library calls, checked at run time by `bridgeAgent`. */
const METHODS = [
  "run",
  "runAgent",
  "connectAgent",
  "abortRun",
  "detachActiveRun",
  "subscribe",
  "use",
  "clone",
  "addMessage",
  "addMessages",
  "setMessages",
  "setState",
] as const satisfies ReadonlyArray<keyof AgUiAgentSurface>;

/**
 * The same agent object, typed as the `AbstractAgent` of the `@ag-ui/client` copy a UI library pins
 * (inferred from where the result goes): `useAgUiRuntime({ agent: bridgeAgent(agent) })`. Needed
 * because 1.0's `HttpAgent` is not assignable to 0.0.5x's `AbstractAgent` (private members, a wider
 * `Message` union), though the library only calls members both have. The argument must be an agent
 * (`AgUiAgentSurface`; its methods checked at run time, a `TypeError` naming what is missing): only
 * the type changes, so the library runs the agent the middleware is installed on.
 */
// eslint-disable-next-line @typescript-eslint/no-unnecessary-type-parameters -- return-only on purpose: the library's agent type is inferred from where the result goes
export function bridgeAgent<LibraryAgent extends AgUiAgentSurface>(agent: AgUiAgentSurface): LibraryAgent {
  const missing = METHODS.filter((name) => !isMethod(agent, name));
  if (missing.length > 0) {
    throw new TypeError(
      `bridgeAgent: expected an AG-UI agent (an @ag-ui/client AbstractAgent such as HttpAgent); missing method${
        missing.length === 1 ? "" : "s"
      } ${missing.join(", ")}`,
    );
  }
  return agent as unknown as LibraryAgent;
}

/** Whether `agent[name]` is a function; a getter that throws counts as missing (input is hostile). */
function isMethod(agent: unknown, name: string): boolean {
  if (typeof agent !== "object" || agent === null) return false;
  try {
    return typeof (agent as Record<string, unknown>)[name] === "function";
  } catch {
    return false;
  }
}
