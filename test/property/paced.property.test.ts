/**
 * D-PACE's differential test: a paced history (`historyPace`) changes when histories are published,
 * never what is derived. Generated streams (test/property/arbitraries.ts: valid conversations of
 * every shape, and the same with one to three mutations) go unpaced through the facade, and paced
 * through
 *
 * - the facade (`reasoningPipeline`),
 * - the five operators piped and fused (the delta lane deferring its text to the publication),
 * - the same operators apart (a `map(x => x)` between every two: no lane),
 * - the middleware inside an agent (`reasoningMiddleware`),
 *
 * each at two cadences: a window that never ends during the run (only the flushes publish) and a
 * scheduler that runs its work as it is scheduled (`queueScheduler`, pace 0: every window ends at
 * once). Each must give what the same path gives unpaced: the verdict (completion, or the error's
 * code, rule, ids and `eventIndex`), the warnings, the events (in order) and the final history, and
 * every history it publishes must be one the unpaced path published (that the paths agree with each
 * other unpaced is paths-agree.property.test.ts's business, D-PATHS). A third of the cases are
 * delivered re-entrantly (the history subscriber feeds the next event from inside every k-th
 * history): then only the verdict and the final history are compared, since a flush before
 * RUN_FINISHED lets the fed event's outputs come before that RUN_FINISHED.
 *
 * FC_SEED / PACED_RUNS (default 300) come from the environment.
 */
// D-DURATION: each path its own counting clock, so that durations compare exactly.
import { countingClock } from "../support/clock";
import fc from "fast-check";
import { map, Observable, queueScheduler, Subject, type OperatorFunction, type SchedulerLike } from "rxjs";
import type { RunAgentInput } from "@ag-ui/core";
import {
  deriveHistory,
  enforceSchema,
  expandChunks,
  reasoningMiddleware,
  reasoningPipeline,
  upcastThinking,
  verifyDiscipline,
  type ReasoningHistory,
  type ReasoningWarning,
} from "../../src";
import { mutatedCaseArb, validCaseArb, type GeneratedCase } from "./arbitraries";
import { canonical, deliverer, mintingIds } from "./harness";

const SEED = Number(process.env.FC_SEED ?? 20261202);
const RUNS = Number(process.env.PACED_RUNS ?? 300);
const SMALL = { maxItems: 4, maxRuns: 2 };

interface Case extends GeneratedCase {
  /** 0: plain delivery; k > 0: the history subscriber feeds the next event from inside every k-th history. */
  readonly every: number;
}

interface Pacing {
  readonly historyPace?: number;
  /** A fresh scheduler per path (its `now()` counts, D-DURATION). */
  readonly scheduler: () => SchedulerLike;
}

const UNPACED: Pacing = { scheduler: () => countingClock() };
const CADENCES: readonly (Pacing & { readonly name: string })[] = [
  { name: "a window that never ends", historyPace: 1e9, scheduler: () => countingClock() },
  { name: "queueScheduler, pace 0", historyPace: 0, scheduler: () => countingClock(queueScheduler) },
];

interface PathRun {
  readonly verdict: string;
  readonly events: unknown[];
  readonly warnings: ReasoningWarning[];
  readonly histories: ReasoningHistory[];
  readonly final: ReasoningHistory | undefined;
}

function verdictOf(error: unknown): string {
  if (error === undefined) return "completed";
  const e = error as { code?: unknown; rule?: unknown; ids?: unknown; eventIndex?: unknown; name?: unknown };
  if (typeof e.code !== "string") return `NOT A PROTOCOL ERROR ${String(e.name)}`;
  return `${e.code} ${String(e.rule)} ${canonical(e.ids)} #${String(e.eventIndex)}`;
}

function viaFacade(c: Case, pacing: Pacing): PathRun {
  const out: PathRun = { verdict: "", events: [], warnings: [], histories: [], final: undefined };
  const source = new Subject<unknown>();
  const delivery = deliverer(c.events, c.every);
  const pipeline = reasoningPipeline(source, {
    producer: c.producer,
    initialMessages: c.initialMessages,
    idFactory: mintingIds(),
    onWarning: (w) => out.warnings.push(w),
    historyPace: pacing.historyPace,
    scheduler: pacing.scheduler(),
  });
  let error: unknown;
  pipeline.history$.subscribe((h) => {
    out.histories.push(h);
    delivery.onHistory();
  });
  pipeline.events$.subscribe({ next: (e) => out.events.push(e), error: (e: unknown) => (error = e) });
  delivery.run(source);
  return { ...out, verdict: verdictOf(error), final: pipeline.history };
}

function viaOperators(c: Case, pacing: Pacing, fused: boolean): PathRun {
  const out: PathRun = { verdict: "", events: [], warnings: [], histories: [], final: undefined };
  const onWarning = (w: ReasoningWarning): void => {
    out.warnings.push(w);
  };
  const operators = [
    upcastThinking({ onWarning, idFactory: mintingIds() }),
    enforceSchema({ onWarning }),
    expandChunks({ onWarning }),
    verifyDiscipline({ onWarning, initialMessages: c.initialMessages }),
    deriveHistory({
      producer: c.producer,
      initialMessages: c.initialMessages,
      onWarning,
      historyPace: pacing.historyPace,
      scheduler: pacing.scheduler(),
    }),
  ] as OperatorFunction<unknown, unknown>[];
  const source = new Subject<unknown>();
  let chained: Observable<unknown> = source;
  operators.forEach((op, i) => {
    chained = (fused || i === 0 ? chained : chained.pipe(map((x) => x))).pipe(op);
  });
  // Apart, each operator counts its own input: only the fused chain is fed re-entrantly.
  const delivery = deliverer(c.events, fused ? c.every : 0);
  let error: unknown;
  chained.subscribe({
    next: (h) => {
      out.histories.push(h as ReasoningHistory);
      delivery.onHistory();
    },
    error: (e: unknown) => (error = e),
  });
  delivery.run(source);
  return { ...out, verdict: verdictOf(error), final: out.histories.at(-1) };
}

function viaMiddleware(c: Case, pacing: Pacing): PathRun {
  const out: PathRun = { verdict: "", events: [], warnings: [], histories: [], final: undefined };
  const source = new Subject<unknown>();
  const delivery = deliverer(c.events, c.every);
  const middleware = reasoningMiddleware({
    producer: c.producer,
    idFactory: mintingIds(),
    onWarning: (w) => out.warnings.push(w),
    historyPace: pacing.historyPace,
    scheduler: pacing.scheduler(),
    onHistory: (h) => {
      out.histories.push(h);
      delivery.onHistory();
    },
  });
  const input: RunAgentInput = {
    threadId: "t",
    runId: "r",
    messages: c.initialMessages,
    tools: [],
    context: [],
    state: {},
    forwardedProps: {},
  };
  let error: unknown;
  (middleware(input, { run: () => source }) as Observable<unknown>).subscribe({
    next: (e) => out.events.push(e),
    error: (e: unknown) => (error = e),
  });
  delivery.run(source);
  return { ...out, verdict: verdictOf(error), final: middleware.history };
}

/** The differences between the paced `run` and the same path unpaced (`reference`), as readable lines. */
function differences(name: string, c: Case, reference: PathRun, run: PathRun): string[] {
  const problems: string[] = [];
  if (run.verdict !== reference.verdict) problems.push(`${name}: verdict ${run.verdict}, unpaced ${reference.verdict}`);
  if (canonical(run.final) !== canonical(reference.final)) problems.push(`${name}: a different final history`);
  if (c.every > 0) return problems;
  if (canonical(run.warnings) !== canonical(reference.warnings)) problems.push(`${name}: different warnings`);
  if (canonical(run.events) !== canonical(reference.events)) problems.push(`${name}: different events`);
  const published = new Set(reference.histories.map((h) => canonical(h)));
  const foreign = run.histories.findIndex((h) => !published.has(canonical(h)));
  if (foreign >= 0) problems.push(`${name}: history #${foreign} is none the unpaced path published`);
  return problems;
}

/** Each path, given a pacing. */
const PATHS: readonly { readonly name: string; readonly run: (c: Case, pacing: Pacing) => PathRun }[] = [
  { name: "facade", run: viaFacade },
  { name: "fused", run: (c, pacing) => viaOperators(c, pacing, true) },
  { name: "apart", run: (c, pacing) => viaOperators(c, pacing, false) },
  { name: "middleware", run: viaMiddleware },
];

const caseArb: fc.Arbitrary<Case> = fc
  .tuple(fc.oneof(validCaseArb(SMALL), mutatedCaseArb(SMALL)), fc.constantFrom(0, 0, 1, 2))
  .map(([c, every]) => ({ ...c, every }));

describe("D-PACE: a paced history gives what an unpaced one gives (differential, generated streams)", () => {
  it("D-PACE: the facade, the operators fused and apart, and the middleware, paced at two cadences, give what each gives unpaced: verdict, warnings, events, final history, and only histories it published", () => {
    fc.assert(
      fc.property(caseArb, (c) => {
        const problems: string[] = [];
        for (const path of PATHS) {
          const reference = path.run(c, UNPACED);
          for (const cadence of CADENCES)
            problems.push(...differences(`${path.name} (${cadence.name})`, c, reference, path.run(c, cadence)));
        }
        expect(problems).toEqual([]);
      }),
      { seed: SEED, numRuns: RUNS },
    );
  });
});
