import { performance } from "node:perf_hooks";
import { buildStream, type BenchStream, type StreamSpec } from "./streams";
import { VARIANT_RUNNERS, type RunOutcome, type Variant, type VariantName } from "./variants";

/**
 * One benchmark cell (one variant × one stream) in its own child process, forked by bench/run.ts
 * with `--expose-gc`. A child per cell keeps cells from warming or polluting each other's JIT state
 * and heap, gives every cell a clean heap to measure, and lets the parent kill a runaway reference
 * run at its cap without losing the samples already taken.
 *
 * argv[2] is a JSON `CellRequest`. Messages to the parent, in order (IPC):
 * `ready` (stream built; the parent starts the cap now) → `checked` (first run verified and
 * memory-sampled) → `sample`* → `done`. A failed check sends `checked` with `ok: false` and stops.
 */
export interface CellRequest {
  readonly variant: VariantName;
  readonly stream: StreamSpec;
  /** Untimed runs between the checked first run and the samples (skipped when a run takes > 1 s). */
  readonly warmups: number;
  /** At least this many timed runs… */
  readonly minRuns: number;
  /** …and more, up to maxRuns, until their total reaches minTotalMs (short streams are noisy). */
  readonly maxRuns: number;
  readonly minTotalMs: number;
  /** Wall-clock budget of the cell after `ready`: no run starts that the last run's time says would overrun it. */
  readonly budgetMs: number;
}

export type CellMessage =
  | { readonly kind: "ready"; readonly events: number; readonly deltas: number }
  | {
      readonly kind: "checked";
      readonly ok: boolean;
      /** Why the cell is invalid (error code and rule, or a wrong history). Never stream content. */
      readonly failure?: string;
      readonly firstRunMs: number;
      /** Peak heapUsed during the first run minus heapUsed after a full GC before it (bytes). */
      readonly peakHeapBytes: number;
      readonly emitted: number;
      /** The final history (ours) after a full GC, messages and issuers read: bytes over the baseline. */
      readonly historyBytes?: number;
      /** Of which its issuer records alone (the array and the records; the values are the events' strings). */
      readonly issuerBytes?: number;
      readonly historyMessages?: number;
      readonly storedValues?: number;
    }
  | {
      readonly kind: "sample";
      /** Wall-clock time of the run. */
      readonly ms: number;
      /** CPU time (user + system, all threads) of the run: unlike wall time, not inflated while other processes hold the CPUs. */
      readonly cpuMs: number;
      readonly counted: "first-run" | "timed";
    }
  | {
      readonly kind: "done";
      /** Peak resident set size of the child over all its runs (bytes). */
      readonly maxRssBytes: number;
    };

/** A run that takes longer than this gets no warm-up: JIT warm-up is noise next to it. */
const SLOW_RUN_MS = 1_000;

async function main(): Promise<void> {
  const request = JSON.parse(process.argv[2] ?? "") as CellRequest;
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error("bench/cell.ts must run with --expose-gc");
  const stream = buildStream(request.stream);
  const run = VARIANT_RUNNERS[request.variant];

  // The reference reports problems with console.warn; ours through onWarning (counted by the variant).
  let consoleWarnings = 0;
  console.warn = (...args: unknown[]) => {
    if (++consoleWarnings <= 3)
      process.stderr.write(`[${request.variant}] console.warn: ${String(args[0]).slice(0, 200)}\n`);
  };

  send({ kind: "ready", events: stream.events.length, deltas: stream.deltas });
  const started = performance.now();

  // 1. The first run is checked and memory-sampled from inside the event flow. A run over a tiny
  //    stream first loads the variant's modules, which would otherwise count as the run's heap.
  await run(buildStream({ kind: "deltas", form: "explicit", n: 2 }));
  gc();
  const baseline = process.memoryUsage().heapUsed;
  let peak = baseline;
  const probe = (): void => {
    const used = process.memoryUsage().heapUsed;
    if (used > peak) peak = used;
  };
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  let outcome: RunOutcome;
  try {
    outcome = await run(stream, probe);
  } catch (error) {
    send({
      kind: "checked",
      ok: false,
      failure: `the run failed: ${describe(error)}`,
      firstRunMs: 0,
      peakHeapBytes: 0,
      emitted: 0,
    });
    return;
  }
  const firstRunMs = performance.now() - t0;
  const firstCpuMs = cpuMsSince(c0);
  probe();
  const failure = check(request.variant, stream, outcome, outcome.warnings + consoleWarnings);
  // The history moves into a box that `retainedBy` empties: no other reference may keep it alive.
  const box = { history: outcome.history };
  outcome = { ...outcome, history: undefined };
  const retained = await retainedBy(box, gc);
  send({
    kind: "checked",
    ok: !failure,
    failure,
    firstRunMs,
    peakHeapBytes: Math.max(0, peak - baseline),
    emitted: outcome.emitted,
    ...retained,
  });
  if (failure) return;

  // 2. Warm-up, then samples. A run that alone takes over a fifth of the budget is kept as a
  //    sample (otherwise a slow reference cell could not get its runs in); no run starts that the
  //    previous run's duration says would overrun the budget.
  let count = 0;
  let total = 0;
  let last = firstRunMs;
  const fits = (): boolean => performance.now() - started + last <= request.budgetMs;
  if (firstRunMs > request.budgetMs / 5) {
    send({ kind: "sample", ms: firstRunMs, cpuMs: firstCpuMs, counted: "first-run" });
    count++;
    total += firstRunMs;
  }
  for (let i = 0; i < request.warmups && last < SLOW_RUN_MS && fits(); i++) last = (await time(run, stream)).ms;
  while (count < request.maxRuns && (count < request.minRuns || total < request.minTotalMs) && fits()) {
    const sample = await time(run, stream);
    last = sample.ms;
    send({ kind: "sample", ...sample, counted: "timed" });
    count++;
    total += last;
  }
  send({ kind: "done", maxRssBytes: process.resourceUsage().maxRSS * 1024 });
}

/**
 * Wall and CPU milliseconds of one run. Runs are not preceded by a forced GC: a full GC leaves
 * concurrent sweeping behind that competes with the timed run on a 2-core machine, and
 * steady-state GC is part of what a pipeline costs.
 */
async function time(run: Variant, stream: BenchStream): Promise<{ ms: number; cpuMs: number }> {
  const c = process.cpuUsage();
  const t = performance.now();
  await run(stream);
  const ms = performance.now() - t;
  return { ms, cpuMs: cpuMsSince(c) };
}

function cpuMsSince(start: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
}

/**
 * What the final history retains, as an application holding it has it (messages and issuers read,
 * so their arrays exist): the heap after a full GC with the whole history held, then with its issuer
 * records alone, each over the heap with neither (measured last). The history is passed in and
 * dropped here.
 */
async function retainedBy(
  box: { history: RunOutcome["history"] },
  gc: () => void,
): Promise<{ historyBytes?: number; issuerBytes?: number; historyMessages?: number; storedValues?: number }> {
  if (box.history === undefined) return {};
  // No local reference to the history itself: dropping it from the box must free it.
  const historyMessages = box.history.messages.length;
  let issuers: readonly unknown[] | undefined = box.history.issuers;
  const storedValues = issuers.length;
  // After a macrotask: the settled promises of the run (its outcome) are released only then.
  const heap = async (): Promise<number> => {
    await new Promise((resolve) => setTimeout(resolve, 1));
    gc();
    return process.memoryUsage().heapUsed;
  };
  const whole = await heap();
  box.history = undefined;
  const issuersOnly = await heap();
  // eslint-disable-next-line no-useless-assignment -- drops the last reference, so the measurement below sees it collected
  issuers = undefined;
  // What stays without either (compiled code, caches) is not the history's.
  const neither = Math.min(await heap(), whole, issuersOnly);
  return { historyBytes: whole - neither, issuerBytes: issuersOnly - neither, historyMessages, storedValues };
}

/**
 * Every variant must accept the stream silently, emit what it should, and — when it derives a
 * conversation — derive exactly the expected content and encrypted values, so no variant is fast
 * because it skipped work.
 */
function check(variant: VariantName, stream: BenchStream, outcome: RunOutcome, warnings: number): string | undefined {
  if (warnings > 0) return `${warnings} warning(s) on a valid stream`;
  // The reference emits state mutations, not events; the floor passes the source through unchanged.
  // The reference and the chained operators (deriveHistory last) emit states, not events.
  const expectedEmitted =
    variant === "floor"
      ? stream.events.length
      : variant === "reference" || variant === "chained"
        ? undefined
        : stream.expectedOutputEvents;
  if (expectedEmitted !== undefined && outcome.emitted !== expectedEmitted) {
    return `${outcome.emitted} events emitted, expected ${expectedEmitted}`;
  }
  if (variant === "pipeline" || variant === "chained" || variant === "reference") {
    if (!outcome.content) return "no history was derived";
    for (const [id, length] of stream.expectedContent) {
      const got = outcome.content.get(id);
      if (got !== length) return `message ${id}: content length ${got ?? "missing"}, expected ${length}`;
    }
    const expectedMessages = stream.expectedMessages ?? stream.priorMessages.length + stream.expectedContent.size;
    const messages = outcome.messages ?? outcome.content.size;
    if (messages !== expectedMessages) return `${messages} messages, expected ${expectedMessages}`;
    if (outcome.encryptedValues !== stream.expectedEncryptedValues) {
      return `${outcome.encryptedValues ?? 0} encrypted values stored, expected ${stream.expectedEncryptedValues}`;
    }
  }
  return undefined;
}

/** An error for the report: its name, code and first line only (D-REDACT: our messages carry no content). */
function describe(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    return `${error.name}${typeof code === "string" ? ` ${code}` : ""}: ${error.message.split("\n")[0]!.slice(0, 300)}`;
  }
  return String(error).slice(0, 300);
}

function send(message: CellMessage): void {
  process.send?.(message);
}

main().then(
  () => process.disconnect?.(),
  (error: unknown) => {
    process.stderr.write(`bench cell crashed: ${describe(error)}\n`);
    process.exitCode = 1;
    process.disconnect?.();
  },
);
