import { defer, tap, type Observable, type ObservableInput } from "rxjs";
import type { RunAgentInput } from "@ag-ui/core";
import type { WarningOptions } from "../core/types";
import { warningSink } from "../core/warnings";
import { shownIdentity } from "../history/producer-identity";
import { endedTransport } from "./transport-end";
import { optionsOf } from "../core/arguments";

/**
 * What `agentEvents` needs of an agent. Structural, so `@ag-ui/client` stays a dev dependency:
 * an `HttpAgent` fits, and so does any agent whose `run` returns an Observable (of any rxjs copy).
 */
export interface RunnableAgent {
  run(input: RunAgentInput): unknown;
  /** `HttpAgent` reads its signal when `run` builds the request; replaced here once per subscription. */
  abortController?: AbortController;
  /** `HttpAgent`'s endpoint: what a transport error names. */
  readonly url?: unknown;
}

/**
 * One `agent.run(input)` as a cold, abortable Observable: the request starts on subscription (one
 * per subscription, each with its own `AbortController`) and unsubscribing before the run ended
 * aborts it — `HttpAgent.run()` sends when *called*, and unsubscribing leaves the response read to
 * the end. A connection failing mid-response ends the stream as `endedTransport` says (a truncation
 * when a run was open, the end when one had ended, with `CONNECTION_BROKEN` to `options.onWarning`;
 * a `TransportError` naming the URL when no run came), never with an unhandled rejection.
 */
export function agentEvents(agent: RunnableAgent, input: RunAgentInput, options?: WarningOptions): Observable<unknown> {
  if (typeof (agent as Partial<RunnableAgent> | null)?.run !== "function") {
    throw new TypeError(
      "agui-reasoning: agentEvents expects an agent with a run(input) method (an @ag-ui/client HttpAgent)",
    );
  }
  const warn = warningSink(optionsOf(options, "agentEvents"));
  return defer(() => {
    const controller = new AbortController();
    if ("abortController" in agent) agent.abortController = controller;
    const endpoint = typeof agent.url === "string" ? shownIdentity(agent.url) : "the agent";
    // Only a consumer leaving before the source ended runs `unsubscribe`: aborting an ended run would be noise.
    return endedTransport(agent.run(input) as ObservableInput<unknown>, endpoint, warn).pipe(
      tap({ unsubscribe: () => controller.abort() }),
    );
  });
}
