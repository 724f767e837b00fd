import { from, isObservable, Subscription, type Observable } from "rxjs";
import type { AguiEvent, ReasoningWarning } from "../core/types";
import type { ReasoningHistory } from "../history/types";
import { reasoningPipeline, type ReasoningPipelineOptions } from "../pipeline/reasoning-pipeline";
import { holds, kitError, objectArgument } from "./arguments";
import { sequentialIds } from "./builders";

/** The producer identity the kit uses when a test names none (also `mockAgent().url`). */
export const TEST_PRODUCER = "https://agent.test/run";

/** Everything one run of the pipeline did, collected synchronously. */
export interface PipelineRun {
  /** Validated, expanded, verified events, in order (those delivered before a failure included). */
  readonly events: AguiEvent[];
  /** Every history state `history$` published, the initial one first. */
  readonly histories: ReasoningHistory[];
  /** The last history state (what was delivered stays, also after a failure). */
  readonly history: ReasoningHistory;
  /** Every warning, in order. */
  readonly warnings: ReasoningWarning[];
  /** The error `events$` failed with (a `ReasoningProtocolError`, or the source's own), if any. */
  readonly error?: unknown;
}

/**
 * Runs `reasoningPipeline` over `events` without a scheduler: the pipeline's analogue of
 * `runStage`. Defaults for tests: deterministic legacy ids (`think-1`, …), producer
 * {@link TEST_PRODUCER}, warnings collected rather than printed. The source must end synchronously
 * (an array, or `of`/`from`); for time, use a marble test.
 */
export function runPipeline(
  events: readonly unknown[] | Observable<unknown>,
  options?: ReasoningPipelineOptions,
): PipelineRun {
  // A string is iterable too (one event per character): not what a test meant.
  if (!holds(events, (e) => Array.isArray(e) || isObservable(e)))
    throw kitError("runPipeline expects an array of events or an Observable");
  const pipeline = reasoningPipeline(from(events), {
    producer: TEST_PRODUCER,
    idFactory: sequentialIds(),
    onWarning: () => {},
    ...objectArgument(options, "runPipeline", "options"),
  });
  const out: AguiEvent[] = [];
  const histories: ReasoningHistory[] = [];
  const warnings: ReasoningWarning[] = [];
  let failure: { error: unknown } | undefined;
  let ended = false;
  // One subscription for the three views: a source that does not end synchronously is let go by all three.
  const subscription = new Subscription();
  subscription.add(pipeline.history$.subscribe((h) => histories.push(h)));
  subscription.add(pipeline.warnings$.subscribe((w) => warnings.push(w)));
  subscription.add(
    pipeline.events$.subscribe({
      next: (e) => out.push(e),
      error: (error: unknown) => {
        failure = { error };
        ended = true;
      },
      complete: () => {
        ended = true;
      },
    }),
  );
  if (!ended) {
    subscription.unsubscribe();
    throw new Error(
      "agui-reasoning/testing: runPipeline needs a source that ends synchronously (an array, of(), from()); use a marble test for time",
    );
  }
  const run = { events: out, histories, history: pipeline.history, warnings };
  return failure ? { ...run, error: failure.error } : run;
}
