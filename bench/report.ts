import type { StreamSpec } from "./streams";
import { streamKey } from "./streams";
import type { VariantName } from "./variants";

/**
 * The figures bench/run.ts derives from the cells — medians, rates, ratios, growth exponents,
 * per-delta costs and the issue-5 targets — and their rendering as a table. Pure functions over
 * plain data; bench/results.json is exactly `BenchResults`.
 */

export type CellStatus =
  /** Measured: at least one timed sample. */
  | "ok"
  /** The cap was reached before one run finished. */
  | "timeout"
  /** Not run: a smaller stream already shows it cannot finish within the cap. */
  | "skipped"
  /** The variant rejected the stream or derived a wrong history (see note). */
  | "failed"
  /** The child process crashed. */
  | "error";

export interface CellResult {
  readonly variant: VariantName;
  readonly stream: string;
  readonly spec: StreamSpec;
  readonly status: CellStatus;
  readonly note?: string;
  readonly events?: number;
  readonly deltas?: number;
  readonly samplesMs: readonly number[];
  /** CPU time of the same runs (user + system): not inflated by other processes holding the CPUs. */
  readonly cpuSamplesMs: readonly number[];
  readonly medianMs?: number;
  readonly medianCpuMs?: number;
  readonly minMs?: number;
  readonly maxMs?: number;
  readonly eventsPerSec?: number;
  /** medianMs / the floor cell's medianMs on the same stream. */
  readonly ratioToFloor?: number;
  readonly peakHeapMB?: number;
  readonly maxRssMB?: number;
  /** The cap that applied (ms); a timed-out cell took at least this long. */
  readonly capMs: number;
  /** For a skipped cell: the least time it would take (a smaller cell's time scaled linearly, at least the cap). */
  readonly lowerBoundMs?: number;
}

/** A figure that may only be known as a bound (the reference timed out: "at least"). */
export interface Bounded {
  readonly value: number;
  /** "=" measured; ">=" a lower bound (the slower side did not finish within its cap). */
  readonly bound: "=" | ">=";
}

export interface TargetResult {
  readonly id: string;
  readonly description: string;
  readonly measured: string;
  readonly threshold: string;
  readonly pass: boolean;
}

export interface BenchResults {
  readonly meta: Record<string, unknown>;
  readonly cells: readonly CellResult[];
  /** log(t(100k)/t(10k))/log(10), per variant and form. */
  readonly growthExponent: Partial<Record<VariantName, Partial<Record<string, number>>>>;
  /** Median time per content delta (ns) with few vs many prior messages, and their ratio. */
  readonly perDelta: Partial<Record<VariantName, { readonly fewNs?: number; readonly manyNs?: number; readonly ratio?: number }>>;
  /** How many times faster the pipeline (b) is than the reference (d), per stream. */
  readonly speedupVsReference: Record<string, Bounded>;
  readonly targets: readonly TargetResult[];
  /**
   * The same targets judged on CPU time instead of wall time (every cell's samples replaced by its
   * CPU samples). On a busy machine wall time includes the time other processes held the CPUs.
   */
  readonly targetsOnCpuTime: readonly TargetResult[];
}

export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

const MB = 1024 * 1024;

/** Fills in the derived figures of a measured cell. */
export function finishCell(
  cell: Omit<CellResult, "medianMs" | "medianCpuMs" | "minMs" | "maxMs" | "eventsPerSec" | "ratioToFloor">,
): CellResult {
  if (cell.samplesMs.length === 0) return cell;
  const medianMs = median(cell.samplesMs);
  return {
    ...cell,
    medianMs,
    medianCpuMs: cell.cpuSamplesMs.length > 0 ? median(cell.cpuSamplesMs) : undefined,
    minMs: Math.min(...cell.samplesMs),
    maxMs: Math.max(...cell.samplesMs),
    eventsPerSec: cell.events !== undefined ? cell.events / (medianMs / 1000) : undefined,
  };
}

export const bytesToMB = (bytes: number): number => Math.round((bytes / MB) * 10) / 10;

/** Adds ratioToFloor to every measured cell whose stream has a measured floor. */
export function withFloorRatios(cells: readonly CellResult[]): CellResult[] {
  const floors = new Map(cells.filter((c) => c.variant === "floor" && c.medianMs).map((c) => [c.stream, c.medianMs!]));
  return cells.map((c) => {
    const f = floors.get(c.stream);
    return c.medianMs !== undefined && f ? { ...c, ratioToFloor: c.medianMs / f } : c;
  });
}

const find = (cells: readonly CellResult[], variant: VariantName, spec: StreamSpec): CellResult | undefined =>
  cells.find((c) => c.variant === variant && c.stream === streamKey(spec));

/** Growth exponent log(t_large/t_small)/log(N_large/N_small) of one form: 1 is linear, 2 quadratic. */
export function growthExponent(small: CellResult | undefined, large: CellResult | undefined): number | undefined {
  if (!small?.medianMs || !large?.medianMs || small.spec.kind !== "deltas" || large.spec.kind !== "deltas") return undefined;
  return Math.log(large.medianMs / small.medianMs) / Math.log(large.spec.n / small.spec.n);
}

/** The pipeline's time over the reference's; a reference that did not finish gives a lower bound. */
export function speedup(ours: CellResult | undefined, ref: CellResult | undefined): Bounded | undefined {
  if (!ours?.medianMs || !ref) return undefined;
  if (ref.medianMs !== undefined && ref.status === "ok") return { value: ref.medianMs / ours.medianMs, bound: "=" };
  if (ref.status === "timeout" || ref.status === "skipped") {
    return { value: Math.max(ref.capMs, ref.lowerBoundMs ?? 0) / ours.medianMs, bound: ">=" };
  }
  return undefined;
}

export interface Plan {
  readonly sizes: readonly number[];
  readonly forms: readonly ("chunked" | "explicit")[];
  /** Long-conversation streams: [few prior, many prior]. */
  readonly long: readonly [StreamSpec, StreamSpec];
}

/** Growth, per-delta costs, speed-ups and the targets of issue 5 (on wall time, and on CPU time). */
export function analyse(cells: readonly CellResult[], plan: Plan): Omit<BenchResults, "meta" | "cells"> {
  const wall = analyseTimes(cells, plan);
  const onCpu = withFloorRatios(cells.map((c) => (c.status === "ok" ? finishCell({ ...c, samplesMs: c.cpuSamplesMs }) : c)));
  return { ...wall, targetsOnCpuTime: analyseTimes(onCpu, plan).targets };
}

function analyseTimes(cells: readonly CellResult[], plan: Plan): Omit<BenchResults, "meta" | "cells" | "targetsOnCpuTime"> {
  const variants: VariantName[] = ["floor", "pipeline", "validated", "reference"];
  const [big, mid] = [plan.sizes[plan.sizes.length - 1]!, plan.sizes[plan.sizes.length - 2]];
  const growthExponentOut: BenchResults["growthExponent"] = {};
  const perDelta: BenchResults["perDelta"] = {};
  for (const v of variants) {
    if (mid !== undefined) {
      for (const form of plan.forms) {
        const g = growthExponent(find(cells, v, { kind: "deltas", form, n: mid }), find(cells, v, { kind: "deltas", form, n: big }));
        if (g !== undefined) (growthExponentOut[v] ??= {})[form] = g;
      }
    }
    const few = find(cells, v, plan.long[0]);
    const many = find(cells, v, plan.long[1]);
    const perNs = (c: CellResult | undefined): number | undefined =>
      c?.medianMs !== undefined && c.deltas ? (c.medianMs * 1e6) / c.deltas : undefined;
    const fewNs = perNs(few);
    const manyNs = perNs(many);
    if (fewNs !== undefined || manyNs !== undefined) {
      perDelta[v] = { fewNs, manyNs, ratio: fewNs && manyNs ? manyNs / fewNs : undefined };
    }
  }
  const speedupVsReference: Record<string, Bounded> = {};
  for (const c of cells) {
    if (c.variant !== "pipeline") continue;
    const s = speedup(c, cells.find((r) => r.variant === "reference" && r.stream === c.stream));
    if (s) speedupVsReference[c.stream] = s;
  }
  return { growthExponent: growthExponentOut, perDelta, speedupVsReference, targets: targets(cells, plan, growthExponentOut, perDelta, speedupVsReference) };
}

function targets(
  cells: readonly CellResult[],
  plan: Plan,
  growth: BenchResults["growthExponent"],
  perDelta: BenchResults["perDelta"],
  speedups: Record<string, Bounded>,
): TargetResult[] {
  const out: TargetResult[] = [];
  const big = plan.sizes[plan.sizes.length - 1]!;
  const bigCells = plan.forms.map((form) => find(cells, "pipeline", { kind: "deltas", form, n: big }));
  const measured = bigCells.every((c) => c?.medianMs !== undefined);
  const fmtForms = (f: (c: CellResult) => string): string =>
    plan.forms.map((form, i) => `${form} ${bigCells[i]?.medianMs !== undefined ? f(bigCells[i]) : "n/a"}`).join(", ");
  out.push({
    id: "T1",
    description: `whole pipeline incl. history at N=${big}: events/s`,
    measured: fmtForms((c) => fmtRate(c.eventsPerSec!)),
    threshold: ">= 1,000,000 events/s",
    pass: measured && bigCells.every((c) => c!.eventsPerSec! >= 1_000_000),
  });
  out.push({
    id: "T2",
    description: `whole pipeline incl. history at N=${big}: time / floor`,
    measured: fmtForms((c) => (c.ratioToFloor !== undefined ? `${c.ratioToFloor.toFixed(2)}×` : "n/a")),
    threshold: "<= 4×",
    pass: measured && bigCells.every((c) => c!.ratioToFloor !== undefined && c!.ratioToFloor <= 4),
  });
  const g = plan.forms.map((form) => growth.pipeline?.[form]);
  out.push({
    id: "T3",
    description: `growth exponent of the pipeline, N=${plan.sizes[plan.sizes.length - 2] ?? "?"}→${big}`,
    measured: plan.forms.map((form, i) => `${form} ${g[i] !== undefined ? g[i].toFixed(3) : "n/a"}`).join(", "),
    threshold: "<= 1.1",
    pass: g.every((x) => x !== undefined && x <= 1.1),
  });
  const at10k = plan.forms.map((form) => speedups[streamKey({ kind: "deltas", form, n: 10_000 })]);
  out.push({
    id: "T4",
    description: "at N=10000: pipeline speed-up over the @ag-ui/client chain",
    measured: plan.forms.map((form, i) => `${form} ${at10k[i] ? fmtBounded(at10k[i]) : "n/a"}`).join(", "),
    threshold: ">= 100×",
    pass: at10k.every((s) => s !== undefined && s.value >= 100),
  });
  const pd = perDelta.pipeline;
  out.push({
    id: "T5",
    description: `per-delta cost with ${priorOf(plan.long[1])} vs ${priorOf(plan.long[0])} prior messages (pipeline)`,
    measured:
      pd?.ratio !== undefined ? `${pd.manyNs!.toFixed(0)} ns vs ${pd.fewNs!.toFixed(0)} ns = ${pd.ratio.toFixed(2)}×` : "n/a",
    threshold: "<= 2×",
    pass: pd?.ratio !== undefined && pd.ratio <= 2,
  });
  return out;
}

const priorOf = (spec: StreamSpec): number => (spec.kind === "long" ? spec.prior : 0);

export const fmtRate = (perSec: number): string =>
  perSec >= 1e6 ? `${(perSec / 1e6).toFixed(2)}M/s` : perSec >= 1e3 ? `${(perSec / 1e3).toFixed(1)}k/s` : `${perSec.toFixed(0)}/s`;

export const fmtBounded = (b: Bounded): string => `${b.bound === ">=" ? "≥ " : ""}${b.value >= 100 ? b.value.toFixed(0) : b.value.toFixed(1)}×`;

const fmtMs = (ms: number): string => (ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : ms >= 10 ? `${ms.toFixed(1)} ms` : `${ms.toFixed(3)} ms`);

/** The results as text: one table of cells, then growth, per-delta cost, speed-ups and targets. */
export function render(results: BenchResults, markdown: boolean): string {
  const header = ["stream", "variant", "events", "runs", "median", "cpu", "events/s", "× floor", "peak heap", "note"];
  const rows = results.cells.map((c) => [
    c.stream,
    c.variant,
    c.events !== undefined ? String(c.events) : "",
    String(c.samplesMs.length),
    c.medianMs !== undefined ? fmtMs(c.medianMs) : c.status.toUpperCase(),
    c.medianCpuMs !== undefined ? fmtMs(c.medianCpuMs) : "",
    c.eventsPerSec !== undefined ? fmtRate(c.eventsPerSec) : "",
    c.ratioToFloor !== undefined ? `${c.ratioToFloor.toFixed(2)}×` : "",
    c.peakHeapMB !== undefined ? `${c.peakHeapMB.toFixed(1)} MB` : "",
    c.note ?? "",
  ]);
  const lines: string[] = [table(header, rows, markdown), ""];

  const growthRows: string[][] = [];
  for (const [variant, byForm] of Object.entries(results.growthExponent)) {
    for (const [form, g] of Object.entries(byForm ?? {})) growthRows.push([variant, form, g!.toFixed(3)]);
  }
  if (growthRows.length) lines.push(heading("Growth exponent (1 = linear, 2 = quadratic)", markdown), table(["variant", "form", "exponent"], growthRows, markdown), "");

  const pdRows = Object.entries(results.perDelta).map(([variant, p]) => [
    variant,
    p.fewNs !== undefined ? `${p.fewNs.toFixed(0)} ns` : "n/a",
    p.manyNs !== undefined ? `${p.manyNs.toFixed(0)} ns` : "n/a",
    p.ratio !== undefined ? `${p.ratio.toFixed(2)}×` : "n/a",
  ]);
  if (pdRows.length) lines.push(heading("Per-delta cost, long conversation", markdown), table(["variant", "few prior", "many prior", "ratio"], pdRows, markdown), "");

  const spRows = Object.entries(results.speedupVsReference).map(([stream, b]) => [stream, fmtBounded(b)]);
  if (spRows.length) lines.push(heading("Pipeline (b) vs @ag-ui/client chain (d)", markdown), table(["stream", "speed-up"], spRows, markdown), "");

  lines.push(
    heading("Targets (issue 5)", markdown),
    table(
      ["", "target", "measured (wall time)", "threshold", "result", "on cpu time"],
      results.targets.map((t, i) => {
        const cpu = results.targetsOnCpuTime[i];
        return [t.id, t.description, t.measured, t.threshold, t.pass ? "PASS" : "FAIL", cpu ? `${cpu.pass ? "PASS" : "FAIL"} (${cpu.measured})` : ""];
      }),
      markdown,
    ),
  );
  return lines.join("\n");
}

const heading = (text: string, markdown: boolean): string => (markdown ? `#### ${text}\n` : `${text}:`);

function table(header: readonly string[], rows: readonly (readonly string[])[], markdown: boolean): string {
  if (markdown) {
    const esc = (s: string): string => s.replace(/\|/g, "\\|");
    return [
      `| ${header.map(esc).join(" | ")} |`,
      `| ${header.map(() => "---").join(" | ")} |`,
      ...rows.map((r) => `| ${r.map(esc).join(" | ")} |`),
    ].join("\n");
  }
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (r: readonly string[]): string => r.map((cell, i) => cell.padEnd(widths[i]!)).join("  ").trimEnd();
  return [line(header), widths.map((w) => "-".repeat(w)).join("  "), ...rows.map(line)].join("\n");
}
