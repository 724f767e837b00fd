import { Observable, type ObservableInput } from "rxjs";
import type { RunAgentInput } from "@ag-ui/core";
import type { WarningOptions } from "../core/types";
import { warningSink } from "../core/warnings";
import { shownIdentity } from "../history/producer-identity";
import { endedTransport } from "./transport-end";

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
 * One `agent.run(input)` as a cold, abortable Observable: the request starts when it is subscribed
 * (once per subscription) and unsubscribing aborts it, so the server sees the connection close.
 *
 * Needed because `HttpAgent.run()` is hot: it sends the request as soon as it is *called*, and
 * unsubscribing from what it returns leaves the response being read to the end. This wrapper gives
 * each subscription its own `AbortController` and aborts it on teardown if the run has not ended.
 *
 * A connection that fails after the response started ends the stream as `endedTransport` says: as a
 * truncation when a run was open (the pipeline's RUN_TRUNCATED), as the end of the stream when a run
 * had ended, each with a `CONNECTION_BROKEN` warning to `options.onWarning` (default `console.warn`),
 * and with a `TransportError` naming the agent's URL when no run came — never with an unhandled
 * rejection from the client's reader teardown.
 */
export function agentEvents(
  agent: RunnableAgent,
  input: RunAgentInput,
  options: WarningOptions = {},
): Observable<unknown> {
  const warn = warningSink(options);
  return new Observable<unknown>((subscriber) => {
    const controller = new AbortController();
    if ("abortController" in agent) agent.abortController = controller;
    // Set once the source has ended on its own: aborting then would be noise.
    let ended = false;
    const endpoint = typeof agent.url === "string" ? shownIdentity(agent.url) : "the agent";
    const inner = endedTransport(agent.run(input) as ObservableInput<unknown>, endpoint, warn).subscribe({
      next: (event) => subscriber.next(event),
      error: (error: unknown) => {
        ended = true;
        subscriber.error(error);
      },
      complete: () => {
        ended = true;
        subscriber.complete();
      },
    });
    return () => {
      inner.unsubscribe();
      if (!ended) controller.abort();
    };
  });
}
