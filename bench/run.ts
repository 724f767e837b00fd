import { execFileSync, fork } from "node:child_process";
import { writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { CellMessage, CellRequest } from "./cell";
import {
  analyse,
  bytesToMB,
  finishCell,
  render,
  withFloorRatios,
  type BenchResults,
  type CellResult,
  type Plan,
} from "./report";
import { streamKey, type StreamSpec } from "./streams";
import { VARIANT_LABELS, VARIANTS, type VariantName } from "./variants";

/**
 * `npm run bench` (= `npx tsx bench/run.ts`): times the same synthetic streams through the four
 * variants of issue 5 — (a) the RxJS floor, (b) our `reasoningPipeline` with all three streams
 * subscribed, (c) our five stage operators without history, (d) the @ag-ui/client 1.0.0 chain —
 * prints one table and writes the same figures to bench/results.json.
 *
 * Every cell runs in its own child process (bench/cell.ts). Reference cells have a 60 s cap and are
 * killed when they overrun it; a reference cell that a smaller stream shows cannot finish in time
 * is skipped and reported as such.
 *
 * Options: --quick (N ≤ 10,000, conversations ≤ 4,000 runs, fewer runs, one process per cell), --only=floor,pipeline,… , --streams=long,… ,
 * --processes=<n> (processes per cell of ours, default 3), --cap=<seconds>,
 * --markdown (tables in Markdown), --strict (exit 1 when a target fails), --out=<file>.
 */

const ROOT = path.resolve(__dirname, "..");
const args = process.argv.slice(2);
const flag = (name: string): boolean => args.includes(`--${name}`);
const option = (name: string): string | undefined =>
  args.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);

const quick = flag("quick");
const markdown = flag("markdown");
const strict = flag("strict");
const referenceCapMs = Number(option("cap") ?? 60) * 1000;
const outFile = path.resolve(ROOT, option("out") ?? "bench/results.json");
const only = new Set((option("only")?.split(",") ?? VARIANTS) as VariantName[]);
for (const v of only)
  if (!VARIANTS.includes(v)) throw new Error(`--only: unknown variant ${v} (one of ${VARIANTS.join(", ")})`);

const plan: Plan = {
  sizes: quick ? [1_000, 10_000] : [1_000, 10_000, 100_000],
  forms: ["chunked", "explicit"],
  long: [
    { kind: "long", prior: 10, n: 10_000 },
    { kind: "long", prior: 1_000, n: 10_000 },
  ],
  // Issue 13: real conversations, run after run in one source (bench/streams.ts `ConversationShape`).
  shapes: ["mixed", "parallel"],
  runs: quick ? [1_000, 4_000] : [1_000, 4_000, 16_000],
};
// --processes=N: child processes per cell of ours (floor, pipeline, validated), samples pooled.
const processes = Math.max(1, Number(option("processes") ?? (quick ? 1 : 3)));
// --streams=long,chunked: only the streams whose key contains one of these (e.g. to re-measure T5).
const streamFilter = option("streams")?.split(",");
const streams: StreamSpec[] = [
  ...plan.sizes.flatMap((n) => plan.forms.map((form): StreamSpec => ({ kind: "deltas", form, n }))),
  ...plan.long,
  ...plan.shapes.flatMap((shape) => plan.runs.map((runs): StreamSpec => ({ kind: "conversation", shape, runs }))),
].filter((spec) => streamFilter === undefined || streamFilter.some((part) => streamKey(spec).includes(part)));

/** Our cells and the floor are fast: many runs, and a generous cap only against a hang. */
const FAST: Omit<CellRequest, "variant" | "stream"> = {
  warmups: quick ? 2 : 5,
  minRuns: quick ? 5 : 9,
  maxRuns: 400,
  minTotalMs: quick ? 300 : 1_000,
  budgetMs: 120_000,
};
/** The reference is slow: 5 runs if they fit in its cap. */
const SLOW: Omit<CellRequest, "variant" | "stream"> = {
  warmups: 1,
  minRuns: 5,
  maxRuns: 5,
  minTotalMs: 0,
  budgetMs: referenceCapMs,
};

async function main(): Promise<void> {
  const started = Date.now();
  const loadBefore = os.loadavg()[0]!;
  log(
    `bench: ${streams.length} streams × ${only.size} variants, ${processes} child process(es) per cell of ours, one per reference cell (${os.cpus().length} CPUs, node ${process.version})`,
  );
  const cells: CellResult[] = [];
  for (const spec of streams) {
    // Each of our cells in `processes` child processes, interleaved (floor, pipeline, validated,
    // floor, …) so that a slow minute of the machine hits every variant alike; their samples are
    // pooled. Why: one process's JIT and heap state is itself a random factor (the same cell's
    // median moves by up to 2× from one process to the next, docs/performance.md "Noise").
    const runs = new Map<VariantName, CellResult[]>();
    for (let p = 0; p < processes; p++) {
      for (const variant of ["floor", "pipeline", "validated", "chained"] as const) {
        // The conversations compare the facade with the six chained operators (issue 13), not (c).
        if (!only.has(variant) || (variant === "validated" && spec.kind === "conversation")) continue;
        runs.set(variant, [
          ...(runs.get(variant) ?? []),
          await runCell({ variant, stream: spec, ...FAST }, FAST.budgetMs),
        ]);
      }
    }
    for (const measured of runs.values()) cells.push(pooled(measured));
  }
  if (only.has("reference")) {
    for (const spec of referenceOrder()) {
      const skip = skipReason(spec, cells);
      cells.push(
        skip
          ? {
              variant: "reference",
              stream: streamKey(spec),
              spec,
              status: "skipped",
              note: skip.reason,
              samplesMs: [],
              cpuSamplesMs: [],
              capMs: referenceCapMs,
              lowerBoundMs: skip.lowerBoundMs,
            }
          : await runCell({ variant: "reference", stream: spec, ...SLOW }, referenceCapMs),
      );
      if (skip) log(`  reference  ${streamKey(spec)}: skipped — ${skip.reason}`);
    }
  }

  const ordered = streams.flatMap((spec) =>
    VARIANTS.flatMap((v) => cells.filter((c) => c.variant === v && c.stream === streamKey(spec))),
  );
  const measured = withFloorRatios(ordered);
  const results: BenchResults = {
    meta: {
      command: `npx tsx bench/run.ts${args.length ? ` ${args.join(" ")}` : ""}`,
      date: new Date().toISOString(),
      ...gitState(),
      node: process.version,
      platform: `${os.platform()} ${os.arch()}`,
      cpu: os.cpus()[0]?.model,
      cpus: os.cpus().length,
      totalMemoryMB: Math.round(os.totalmem() / 1024 / 1024),
      referenceCapSeconds: referenceCapMs / 1000,
      processesPerCell: processes,
      variants: VARIANT_LABELS,
      durationSeconds: Math.round((Date.now() - started) / 1000),
      // 1-minute load averages: above the CPU count, other processes inflated the wall times.
      loadAverage: { before: round2(loadBefore), after: round2(os.loadavg()[0]!) },
    },
    cells: measured,
    ...analyse(measured, plan),
  };
  writeFileSync(outFile, `${JSON.stringify(results, null, 2)}\n`);
  const busiest = Math.max(loadBefore, os.loadavg()[0]!);
  if (busiest > os.cpus().length) {
    log(
      `bench: the machine was busy (load average up to ${busiest.toFixed(1)} on ${os.cpus().length} CPUs): wall times are inflated; compare the "cpu" column.`,
    );
  }
  process.stdout.write(
    `\n${render(results, markdown)}\n\nwritten: ${path.relative(process.cwd(), outFile)} (${String(results.meta.durationSeconds)} s)\n`,
  );
  const broken = measured.filter((c) => c.status === "failed" || c.status === "error");
  if (broken.length > 0) {
    process.stderr.write(
      `bench: ${broken.length} cell(s) failed: ${broken.map((c) => `${c.variant} ${c.stream}`).join("; ")}\n`,
    );
    process.exitCode = 1;
  } else if (strict && results.targets.some((t) => !t.pass)) {
    process.exitCode = 1;
  }
}

/** One cell measured in several processes: their samples pooled (the first cell that did not succeed, if any). */
function pooled(measured: readonly CellResult[]): CellResult {
  const failed = measured.find((c) => c.status !== "ok");
  if (failed !== undefined || measured.length === 1) return failed ?? measured[0]!;
  const first = measured[0]!;
  const max = (values: (number | undefined)[]): number | undefined => {
    const known = values.filter((v): v is number => v !== undefined);
    return known.length > 0 ? Math.max(...known) : undefined;
  };
  const notes = [
    `${measured.length} processes`,
    ...measured.map((c) => c.note).filter((n): n is string => n !== undefined),
  ];
  return finishCell({
    variant: first.variant,
    stream: first.stream,
    spec: first.spec,
    status: "ok",
    note: [...new Set(notes)].join("; "),
    events: first.events,
    deltas: first.deltas,
    samplesMs: measured.flatMap((c) => c.samplesMs),
    cpuSamplesMs: measured.flatMap((c) => c.cpuSamplesMs),
    capMs: first.capMs,
    peakHeapMB: max(measured.map((c) => c.peakHeapMB)),
    // The first process's memory figures (every process runs the same first run).
    ...(first.memory && { memory: first.memory }),
    maxRssMB: max(measured.map((c) => c.maxRssMB)),
  });
}

/** Reference cells smallest first within each family, so a time-out can rule out the larger ones. */
function referenceOrder(): StreamSpec[] {
  return [
    ...plan.forms.flatMap((form) => plan.sizes.map((n): StreamSpec => ({ kind: "deltas", form, n }))),
    ...plan.long,
  ];
}

/**
 * Why a reference cell cannot finish within the cap (and a lower bound of its time), judged from a
 * smaller cell of the same family:
 * that one timed out, or its median scaled *linearly* to this size already exceeds the cap (the
 * reference grows super-linearly, so linear scaling is a lower bound). For the long conversation,
 * more prior messages can only cost more, so the few-prior time is a lower bound.
 */
function skipReason(
  spec: StreamSpec,
  cells: readonly CellResult[],
): { reason: string; lowerBoundMs: number } | undefined {
  const ref = cells.filter((c) => c.variant === "reference");
  const smaller = ref.filter((c) =>
    spec.kind === "deltas"
      ? c.spec.kind === "deltas" && c.spec.form === spec.form && c.spec.n < spec.n
      : spec.kind === "long" && c.spec.kind === "long" && c.spec.n === spec.n && c.spec.prior < spec.prior,
  );
  const cap = `${referenceCapMs / 1000} s cap`;
  for (const c of smaller) {
    if (c.status === "timeout" || c.status === "skipped") {
      return {
        reason: `${c.stream} already exceeded the ${cap}`,
        lowerBoundMs: Math.max(referenceCapMs, c.lowerBoundMs ?? 0),
      };
    }
  }
  for (const c of smaller) {
    if (c.medianMs === undefined) continue;
    const scale = spec.kind === "deltas" && c.spec.kind === "deltas" ? spec.n / c.spec.n : 1;
    const lowerBoundMs = c.medianMs * scale;
    if (lowerBoundMs > referenceCapMs) {
      return {
        reason: `${c.stream} took ${(c.medianMs / 1000).toFixed(1)} s, so this needs ≥ ${(lowerBoundMs / 1000).toFixed(0)} s even if it grew linearly (${cap})`,
        lowerBoundMs,
      };
    }
  }
  return undefined;
}

/** Forks bench/cell.ts for one cell, enforces its cap, and turns its messages into a CellResult. */
function runCell(request: CellRequest, capMs: number): Promise<CellResult> {
  const key = streamKey(request.stream);
  const label = `  ${request.variant.padEnd(9)}  ${key}`;
  return new Promise((resolve) => {
    const child = fork(path.join(__dirname, "cell.ts"), [JSON.stringify(request)], {
      cwd: ROOT,
      execArgv: ["--import", "tsx", "--expose-gc"],
      stdio: ["ignore", "inherit", "inherit", "ipc"],
    });
    // What the child has reported so far.
    const samples: number[] = [];
    const cpuSamples: number[] = [];
    let events: number | undefined;
    let deltas: number | undefined;
    let checked: Extract<CellMessage, { kind: "checked" }> | undefined;
    let firstRunCounted = false;
    let maxRssBytes: number | undefined;
    let timedOut = false;
    let timer: NodeJS.Timeout | undefined;

    child.on("message", (message: CellMessage) => {
      switch (message.kind) {
        case "ready":
          events = message.events;
          deltas = message.deltas;
          timer = setTimeout(() => {
            timedOut = true;
            child.kill("SIGKILL");
          }, capMs);
          break;
        case "checked":
          checked = message;
          break;
        case "sample":
          samples.push(message.ms);
          cpuSamples.push(message.cpuMs);
          if (message.counted === "first-run") firstRunCounted = true;
          break;
        case "done":
          maxRssBytes = message.maxRssBytes;
          break;
      }
    });
    child.on("exit", (code, signal) => {
      clearTimeout(timer);
      const base = {
        variant: request.variant,
        stream: key,
        spec: request.stream,
        events,
        deltas,
        samplesMs: samples,
        cpuSamplesMs: cpuSamples,
        capMs,
        peakHeapMB: checked?.ok ? bytesToMB(checked.peakHeapBytes) : undefined,
        ...(checked?.ok &&
          checked.historyBytes !== undefined && {
            memory: {
              peakHeapBytes: checked.peakHeapBytes,
              historyBytes: checked.historyBytes,
              issuerBytes: checked.issuerBytes ?? 0,
              historyMessages: checked.historyMessages ?? 0,
              storedValues: checked.storedValues ?? 0,
            },
          }),
        maxRssMB: maxRssBytes !== undefined ? bytesToMB(maxRssBytes) : undefined,
      };
      let result: CellResult;
      if (checked && !checked.ok) {
        result = { ...base, status: "failed", note: checked.failure };
      } else if (samples.length > 0) {
        const notes: string[] = [];
        if (firstRunCounted) notes.push("first run counted (no warm-up)");
        if (samples.length < request.minRuns)
          notes.push(`${samples.length} of ${request.minRuns} runs fit in the ${capMs / 1000} s cap`);
        result = finishCell({ ...base, status: "ok", note: notes.join("; ") || undefined });
      } else if (timedOut) {
        result = {
          ...base,
          status: "timeout",
          note: checked
            ? `one run took ${(checked.firstRunMs / 1000).toFixed(1)} s; the next did not fit in the ${capMs / 1000} s cap`
            : `no run finished within the ${capMs / 1000} s cap`,
        };
      } else {
        result = { ...base, status: "error", note: `child exited (${signal ?? `code ${code}`}) without a sample` };
      }
      log(`${label}: ${summary(result)}`);
      resolve(result);
    });
  });
}

/** The commit measured, and whether the working tree differed from it (read-only git). */
function gitState(): { commit?: string; uncommittedChanges?: boolean } {
  try {
    const git = (...a: string[]): string =>
      execFileSync("git", a, { cwd: ROOT, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim();
    return {
      commit: git("rev-parse", "--short", "HEAD"),
      uncommittedChanges: git("status", "--porcelain", "--", "src").length > 0,
    };
  } catch {
    return {};
  }
}

function summary(c: CellResult): string {
  if (c.medianMs === undefined) return `${c.status.toUpperCase()}${c.note ? ` — ${c.note}` : ""}`;
  const rate = c.eventsPerSec !== undefined ? `, ${(c.eventsPerSec / 1e6).toFixed(2)}M events/s` : "";
  const cpu = c.medianCpuMs !== undefined ? ` (cpu ${c.medianCpuMs.toFixed(c.medianCpuMs < 10 ? 3 : 1)} ms)` : "";
  return `median ${c.medianMs.toFixed(c.medianMs < 10 ? 3 : 1)} ms${cpu} of ${c.samplesMs.length} runs${rate}, peak heap ${c.peakHeapMB ?? "?"} MB${c.note ? ` (${c.note})` : ""}`;
}

const round2 = (x: number): number => Math.round(x * 100) / 100;

function log(line: string): void {
  process.stderr.write(`${line}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`bench failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exitCode = 1;
});
