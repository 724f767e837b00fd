import { isObservable, type Observable } from "rxjs";
import { holds, kitError, objectArgument } from "./arguments";

/** Anything with the three views of a pipeline (a `ReasoningPipeline`, or an integrator's own facade). */
export interface PipelineViews {
  readonly events$: Observable<unknown>;
  readonly history$: Observable<unknown>;
  readonly warnings$: Observable<unknown>;
}

/** The expected diagram of each view; a view left out is not asserted. */
export interface PipelineDiagram {
  readonly events?: string;
  readonly history?: string;
  readonly warnings?: string;
}

/** What `expectPipeline` needs of the TestScheduler's run helpers (`RunHelpers.expectObservable`). */
export interface PipelineHelpers {
  expectObservable(observable: Observable<unknown>): {
    toBe(marbles: string, values?: unknown, errorValue?: unknown): void;
  };
}

/**
 * Asserts `events$`, `history$` and `warnings$` of one pipeline in one diagram. Call it inside
 * `createTestScheduler().run(helpers => …)`. The diagram is either an object or one string with a
 * labelled row per view (spaces align rows and are ignored in run mode):
 *
 * ```ts
 * expectPipeline(helpers, reasoningPipeline(cold("R k K F |", alphabet), options)).toBe(`
 *   events:   R (<c) C  (>F|)
 *   history:  0  1   2  (3|)
 *   warnings: -  -   -  |
 * `, { ...alphabet, 0: h0, 1: h1, 2: h2, 3: h3 });
 * ```
 *
 * `history$` and `warnings$` are subscribed before `events$`, because subscribing `events$` starts
 * the source. `error` is the expected error of the `events` row's `#` (see `protocolErrorWith`).
 */
export function expectPipeline(
  helpers: PipelineHelpers,
  pipeline: PipelineViews,
): { toBe(diagram: string | PipelineDiagram, values?: Record<string, unknown>, error?: unknown): void } {
  if (!holds(helpers, (h) => typeof h.expectObservable === "function"))
    throw kitError("expectPipeline expects the TestScheduler's run helpers (with `expectObservable`) first");
  if (!holds(pipeline, (p) => isObservable(p.events$) && isObservable(p.history$) && isObservable(p.warnings$)))
    throw kitError(
      "expectPipeline expects a pipeline: an object with `events$`, `history$` and `warnings$` Observables",
    );
  return {
    toBe(diagram, values = {}, error) {
      const rows = typeof diagram === "string" ? parseDiagram(diagram) : checkedRows(diagram);
      // A diagram with no row would assert nothing: a test that cannot fail.
      if (Object.values(rows).every((row) => row === undefined))
        throw new Error('agui-reasoning/testing: expectPipeline needs at least one of "events", "history", "warnings"');
      if (rows.history !== undefined) helpers.expectObservable(pipeline.history$).toBe(rows.history, values);
      if (rows.warnings !== undefined) helpers.expectObservable(pipeline.warnings$).toBe(rows.warnings, values);
      if (rows.events !== undefined) helpers.expectObservable(pipeline.events$).toBe(rows.events, values, error);
      // Not asserted, but still the view that starts the source; an error is then the test's business.
      // eslint-disable-next-line rxjs-x/no-ignored-subscription -- the TestScheduler's flush runs the cold source to its end
      else pipeline.events$.subscribe({ error: () => {} });
    },
  };
}

const ROW = /^\s*(events|history|warnings)\s*:(.*)$/;

/** An object diagram whose keys are rows, each a string (or left out); a misspelt row would be silently skipped. */
function checkedRows(diagram: PipelineDiagram): PipelineDiagram {
  // Not an object (null, a number) asserts nothing, which toBe refuses; one whose reads throw is refused here.
  const given: PipelineDiagram =
    typeof diagram === "object" && diagram !== null ? objectArgument(diagram, "expectPipeline", "diagram") : {};
  for (const [name, row] of Object.entries(given)) {
    if (!["events", "history", "warnings"].includes(name) || (row !== undefined && typeof row !== "string"))
      throw new Error(
        `agui-reasoning/testing: diagram row ${JSON.stringify(name)} is not a string "events", "history" or "warnings"`,
      );
  }
  return given;
}

/** Splits a labelled multi-line diagram into its rows. Blank lines are ignored; anything else throws. */
export function parseDiagram(text: string): PipelineDiagram {
  if (typeof text !== "string") throw new TypeError("agui-reasoning/testing: parseDiagram expects the diagram's text");
  const rows: Record<string, string> = {};
  for (const line of text.split("\n")) {
    if (line.trim() === "") continue;
    const match = ROW.exec(line);
    if (!match)
      throw new Error(
        `agui-reasoning/testing: diagram line ${JSON.stringify(line.trim())} is not "events:", "history:" or "warnings:"`,
      );
    const [, name, marbles] = match as unknown as [string, string, string];
    if (name in rows) throw new Error(`agui-reasoning/testing: diagram row "${name}" appears twice`);
    rows[name] = marbles;
  }
  return rows;
}
