import { HttpAgent } from "@ag-ui/client";
import type { RunAgentInput } from "@ag-ui/core";
import {
  reasoningPipeline,
  type ReasoningHistory,
  type ReasoningPipelineOptions,
  type ReasoningWarning,
} from "../../src";
import type { AguiEvent } from "../../src/core/types";
import { agentEvents } from "../../src/integration/agent-events";
import { sequentialIds } from "../../src/testing/builders";

/** What one run through a real `HttpAgent` and the pipeline produced. */
export interface HttpRunResult {
  /** Validated events, in delivery order. */
  readonly events: AguiEvent[];
  /** Every history state `history$` emitted. */
  readonly histories: ReasoningHistory[];
  /** The last history state. */
  readonly history: ReasoningHistory;
  readonly warnings: ReasoningWarning[];
  /** The error `events$` ended with, if any. */
  readonly error: unknown;
}

/** A complete `RunAgentInput`. */
export function runInput(overrides: Partial<RunAgentInput> = {}): RunAgentInput {
  return {
    threadId: "t-http",
    runId: "r-http",
    messages: [],
    tools: [],
    context: [],
    state: {},
    forwardedProps: {},
    ...overrides,
  };
}

/**
 * POSTs `input` to `url` with a real `HttpAgent`, pipes the response through `reasoningPipeline`
 * with `events$`, `history$` and `warnings$` all subscribed, and waits for the end.
 */
export async function runOverHttp(
  url: string,
  input: RunAgentInput,
  options: ReasoningPipelineOptions = {},
): Promise<HttpRunResult> {
  const agent = new HttpAgent({ url });
  const warnings: ReasoningWarning[] = [];
  const pipeline = reasoningPipeline(agentEvents(agent, input), {
    producer: url,
    idFactory: sequentialIds(),
    initialMessages: input.messages,
    onWarning: () => {},
    ...options,
  });
  const histories: ReasoningHistory[] = [];
  const events: AguiEvent[] = [];
  pipeline.history$.subscribe((h) => histories.push(h));
  pipeline.warnings$.subscribe((w) => warnings.push(w));
  const error = await new Promise<unknown>((resolve) => {
    pipeline.events$.subscribe({
      next: (e) => events.push(e),
      error: (e: unknown) => resolve(e),
      complete: () => resolve(undefined),
    });
  });
  return { events, histories, history: pipeline.history, warnings, error };
}
