import type { Message, RunAgentInput } from "@ag-ui/core";
import { from, lastValueFrom, toArray, type Observable } from "rxjs";
import type { ReasoningMiddleware } from "../../src/integration/http-agent-middleware";
import { ev } from "../../src/testing/builders";
import { runInput } from "./http-run";

/**
 * Runs `messages` in thread `threadId` through `middleware` to a stand-in next agent that answers
 * `events` at once (by default a run with nothing in it); the messages that agent received.
 */
export async function runThrough(
  middleware: ReasoningMiddleware,
  threadId: string,
  messages: Message[],
  events: unknown[] = [ev.runStarted(`${threadId}-run`, { threadId }), ev.runFinished(`${threadId}-run`, { threadId })],
): Promise<Message[]> {
  let received: RunAgentInput | undefined;
  const next = {
    run: (input: RunAgentInput) => {
      received = input;
      return from(events);
    },
  };
  await lastValueFrom((middleware(runInput({ threadId, messages }), next) as Observable<unknown>).pipe(toArray()));
  return received!.messages;
}
