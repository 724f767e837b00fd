/**
 * The differential test of D-PATHS (issue 20): every way to run the package gives one verdict on
 * one stream. Generated streams — valid conversations of every shape the reference model knows
 * (test/property/arbitraries.ts: messages, tool calls, spans, steps, values, activity, snapshots,
 * legacy THINKING_*, subagents; finished, cancelled, RUN_ERROR midway, truncated), and the same with
 * one to three one-event mutations — go through
 *
 * - the facade (`reasoningPipeline`),
 * - the five operators piped and fused,
 * - the same operators apart (a `map(x => x)` between every two),
 * - the middleware inside an agent (`reasoningMiddleware`, called as `agent.use` calls it),
 * - `agui-reasoning check --json` (in process, over the stream written as a JSON array),
 *
 * and must give the same verdict (completion, or the error's code, rule and ids), the same warnings
 * and the same final history, `incomplete` and its reasons included. The facade, the fused chain
 * and the middleware must also publish the same sequence of histories and name the same
 * `eventIndex` (D-EVENT-INDEX); apart, an operator counts its own input, so only the index differs.
 * A third of the cases are delivered re-entrantly: the history subscriber feeds the source the next
 * event from inside every k-th history (the same rule on the three paths that publish histories).
 *
 * FC_SEED / PATHS_RUNS (default 10,000) come from the environment.
 */
// D-DURATION: each path its own counting clock, so that durations compare exactly.
import { countingClock } from "../support/clock";
import fc from "fast-check";
import { isDeepStrictEqual } from "node:util";
import { map, Observable, Subject, type OperatorFunction } from "rxjs";
import type { Message, RunAgentInput } from "@ag-ui/core";
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
import { runCheck } from "../../src/cli/check";
import { CHECK_WARNING_CODES } from "../support/check-warning-codes";
import { mutatedCaseArb, validCaseArb, type GeneratedCase } from "./arbitraries";
import { canonical, deliverer, mintingIds } from "./harness";

const SEED = Number(process.env.FC_SEED ?? 20261201);
const RUNS = Number(process.env.PATHS_RUNS ?? 10_000);
const SMALL = { maxItems: 4, maxRuns: 2 };

interface Case extends GeneratedCase {
  /** 0: plain delivery; k > 0: the history subscriber feeds the next event from inside every k-th history. */
  readonly every: number;
}

/** What one path gave. */
interface PathRun {
  /** "completed", or the error's code, rule and ids (or what else it failed with). */
  readonly verdict: string;
  readonly eventIndex: number | undefined;
  readonly warnings: ReasoningWarning[];
  readonly histories: unknown[];
  readonly final: ReasoningHistory | undefined;
}

function verdictOf(error: unknown): { verdict: string; eventIndex: number | undefined } {
  if (error === undefined) return { verdict: "completed", eventIndex: undefined };
  const e = error as { code?: unknown; rule?: unknown; ids?: unknown; eventIndex?: unknown; name?: unknown };
  if (typeof e.code !== "string") return { verdict: `NOT A PROTOCOL ERROR ${String(e.name)}`, eventIndex: undefined };
  return { verdict: `${e.code} ${String(e.rule)} ${canonical(e.ids)}`, eventIndex: e.eventIndex as number };
}

function viaFacade(
  c: Case,
  options: { producer: string; initialMessages?: readonly Message[]; initialHistory?: ReasoningHistory },
): PathRun {
  const warnings: ReasoningWarning[] = [];
  const histories: unknown[] = [];
  const source = new Subject<unknown>();
  const delivery = deliverer(c.events, c.every);
  const pipeline = reasoningPipeline(source, {
    ...options,
    idFactory: mintingIds(),
    onWarning: (w) => warnings.push(w),
    scheduler: countingClock(),
  });
  let error: unknown;
  pipeline.history$.subscribe((h) => {
    histories.push(h);
    delivery.onHistory();
  });
  pipeline.events$.subscribe({ error: (e: unknown) => (error = e) });
  delivery.run(source);
  return { ...verdictOf(error), warnings, histories, final: pipeline.history };
}

function viaOperators(c: Case, fused: boolean): PathRun {
  const warnings: ReasoningWarning[] = [];
  const histories: unknown[] = [];
  const onWarning = (w: ReasoningWarning): void => {
    warnings.push(w);
  };
  const seed = { producer: c.producer, initialMessages: c.initialMessages, onWarning, scheduler: countingClock() };
  const operators = [
    upcastThinking({ onWarning, idFactory: mintingIds() }),
    enforceSchema({ onWarning }),
    expandChunks({ onWarning }),
    verifyDiscipline({ onWarning, initialMessages: c.initialMessages }),
    deriveHistory(seed),
  ] as OperatorFunction<unknown, unknown>[];
  const source = new Subject<unknown>();
  let chained: Observable<unknown> = source;
  operators.forEach((op, i) => {
    chained = (fused || i === 0 ? chained : chained.pipe(map((x) => x))).pipe(op);
  });
  const delivery = deliverer(c.events, fused ? c.every : 0);
  let error: unknown;
  chained.subscribe({
    next: (h) => {
      histories.push(h);
      delivery.onHistory();
    },
    error: (e: unknown) => (error = e),
  });
  delivery.run(source);
  return { ...verdictOf(error), warnings, histories, final: histories.at(-1) as ReasoningHistory | undefined };
}

function viaMiddleware(c: Case): PathRun {
  const warnings: ReasoningWarning[] = [];
  const histories: unknown[] = [];
  const source = new Subject<unknown>();
  const delivery = deliverer(c.events, c.every);
  const middleware = reasoningMiddleware({
    producer: c.producer,
    idFactory: mintingIds(),
    onWarning: (w) => warnings.push(w),
    scheduler: countingClock(),
    onHistory: (h) => {
      histories.push(h);
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
  (middleware(input, { run: () => source }) as Observable<unknown>).subscribe({ error: (e: unknown) => (error = e) });
  delivery.run(source);
  return { ...verdictOf(error), warnings, histories, final: middleware.history };
}

/** `check --json` over the stream written as a JSON array (a recording; JSON Lines cannot start with a non-object). */
async function viaCheck(
  events: readonly unknown[],
): Promise<{ verdict: string; eventIndex: number | undefined; warnings: unknown; history: unknown }> {
  let stdout = "";
  const lines = JSON.stringify(events);
  await runCheck(["check", "-", "--json", "--show-values", "--show-reasoning", "--allow-empty", "--no-progress"], {
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: () => true },
    stdin: (async function* () {
      yield lines;
    })(),
  });
  const doc = JSON.parse(stdout) as {
    error: { code: string; rule: string; ids: string[]; eventIndex: number } | null;
    warnings: unknown;
    history: unknown;
  };
  const verdict = doc.error === null ? verdictOf(undefined) : verdictOf(doc.error);
  // The check's own warnings (its lint rules, what reading found) are the linter's, not the pipeline's:
  // they change nothing it delivers (docs/cli.md, "Lint rules"); the pipeline's warnings must agree.
  const own = (doc.warnings as { code: string }[]).filter((w) => !CHECK_WARNING_CODES.has(w.code));
  return { ...verdict, warnings: own, history: doc.history };
}

/**
 * `value` as canonical JSON with the ids upcasting minted (`pattern`) replaced by `minted-1`,
 * `minted-2`, … in order of appearance: `check` mints random UUIDs (D-THINK-IDS), the tests `think-N`.
 */
function mintedAsOrdered(value: unknown, pattern: RegExp): string {
  const names = new Map<string, string>();
  return canonical(value).replace(pattern, (id) => {
    if (!names.has(id)) names.set(id, `minted-${names.size + 1}`);
    return names.get(id)!;
  });
}
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;
const THINK = /think-\d+/g;
/** Times per path (PATHS_TIMES=1 prints them). */
const times: Record<string, number> = {};
function timed<T>(name: string, f: () => T): T {
  const t = performance.now();
  try {
    return f();
  } finally {
    times[name] = (times[name] ?? 0) + performance.now() - t;
  }
}

/** A warning without its index, for the chain apart (each operator counts its own input there). */
const unindexed = (ws: readonly ReasoningWarning[]): string[] =>
  ws.map(({ code, rule, eventType, ids, lossy }) => canonical({ code, rule, eventType, ids, lossy }));

/** The differences between the paths on `c` ([] = they agree). */
async function disagreements(c: Case): Promise<string[]> {
  const problems: string[] = [];
  const expect = (what: string, a: unknown, b: unknown): void => {
    if (!isDeepStrictEqual(a, b) && canonical(a) !== canonical(b))
      problems.push(`${what}: ${canonical(a).slice(0, 300)} ≠ ${canonical(b).slice(0, 300)}`);
  };
  const facade = timed("facade", () => viaFacade(c, { producer: c.producer, initialMessages: c.initialMessages }));
  if (facade.verdict.startsWith("NOT A PROTOCOL ERROR")) problems.push(`facade: ${facade.verdict}`);

  const fused = timed("fused", () => viaOperators(c, true));
  expect("fused chain: verdict", fused.verdict, facade.verdict);
  expect("fused chain: eventIndex", fused.eventIndex, facade.eventIndex);
  expect("fused chain: warnings", fused.warnings, facade.warnings);
  expect("fused chain: histories", fused.histories, facade.histories);

  const middleware = timed("middleware", () => viaMiddleware(c));
  // The middleware starts from the conversation its run input holds (D-KEEPER): the facade given that start.
  const seeded = viaFacade(c, { producer: c.producer, initialHistory: middleware.histories[0] as ReasoningHistory });
  // An agent's reply without any event is no run (R-TRANS-3): a TransportError on the transport paths
  // (the middleware, agentEvents, check --url), where the facade accepts an empty source as it is.
  const noReply = c.events.length === 0 ? "NOT A PROTOCOL ERROR TransportError" : undefined;
  expect("middleware: verdict", middleware.verdict, noReply ?? facade.verdict);
  expect("middleware: eventIndex", middleware.eventIndex, seeded.eventIndex);
  expect("middleware: warnings", middleware.warnings, seeded.warnings);
  expect("middleware: histories", middleware.histories, seeded.histories);

  // Apart and through check: plain delivery (their deliveries are not the facade's re-entrant one).
  const plain =
    c.every === 0
      ? facade
      : viaFacade({ ...c, every: 0 }, { producer: c.producer, initialMessages: c.initialMessages });
  const apart = timed("apart", () => viaOperators(c, false));
  expect("apart: verdict", apart.verdict, plain.verdict);
  expect("apart: warnings", unindexed(apart.warnings), unindexed(plain.warnings));
  expect("apart: final history", apart.final, plain.final);

  // check reads a recording: JSON text, its own label as the producer, no initial messages. It mints
  // random ids for legacy THINKING_* items: a stream naming a minted id (a snapshot restating one) is left out.
  if (/think-\d/.test(JSON.stringify(c.events))) return problems;
  const recorded = JSON.parse(JSON.stringify(c.events.map((e) => (e === undefined ? null : e)))) as unknown[];
  const reference = viaFacade({ ...c, events: recorded, every: 0 }, { producer: "stdin" });
  const t = performance.now();
  const checked = await viaCheck(recorded);
  times.check = (times.check ?? 0) + performance.now() - t;
  const same = (what: string, a: unknown, b: unknown): void => {
    const [x, y] = [mintedAsOrdered(a, UUID), mintedAsOrdered(JSON.parse(JSON.stringify(b)), THINK)];
    if (x !== y) problems.push(`${what}: ${x.slice(0, 300)} ≠ ${y.slice(0, 300)}`);
  };
  same("check: verdict", checked.verdict, reference.verdict);
  expect("check: eventIndex", checked.eventIndex, reference.eventIndex);
  same("check: warnings", checked.warnings, reference.warnings);
  same("check: history", checked.history, {
    messages: reference.final!.messages,
    incomplete: reference.final!.incomplete,
  });
  return problems;
}

const caseArb = (base: fc.Arbitrary<GeneratedCase>): fc.Arbitrary<Case> =>
  fc.tuple(base, fc.constantFrom(0, 0, 0, 1, 2, 3)).map(([c, every]) => ({ ...c, every }));

describe("D-PATHS: the facade, the fused chain, the chain apart, the middleware and check agree (differential)", () => {
  console.log(`paths-agree: FC_SEED=${SEED} PATHS_RUNS=${RUNS}`);
  for (const [name, arb, share] of [
    ["valid conversations (finished, cancelled, RUN_ERROR, truncated)", validCaseArb(SMALL), 0.5],
    ["one to three one-event mutations", mutatedCaseArb(SMALL), 0.5],
  ] as const) {
    it(`D-PATHS D-EVENT-INDEX: ${name}, plain and re-entrant delivery`, async () => {
      await fc.assert(
        fc.asyncProperty(caseArb(arb), async (c) => {
          const problems = await disagreements(c);
          if (problems.length > 0) throw new Error(problems.join("\n"));
        }),
        { seed: SEED, numRuns: Math.round(RUNS * share) },
      );
    }, 600_000);
  }
  afterAll(() => {
    if (process.env.PATHS_TIMES) console.log(times);
  });
});
