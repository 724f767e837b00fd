import type { ConversationShape, StreamSpec } from "./streams";
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
  /** Memory of the checked first run, for a variant that derives a history (bytes). */
  readonly memory?: CellMemory;
}

/** What the checked first run of a history-deriving cell held (bench/cell.ts `retainedBy`). */
export interface CellMemory {
  /** Peak heap during the run over the post-GC baseline before it. */
  readonly peakHeapBytes: number;
  /** The final history alone, after a full GC, messages and issuers read. */
  readonly historyBytes: number;
  /** Its issuer records alone. */
  readonly issuerBytes: number;
  readonly historyMessages: number;
  readonly storedValues: number;
}

/** One row of the conversations table (issue 13): one shape at one number of runs. */
export interface ConversationRow {
  readonly shape: ConversationShape;
  readonly runs: number;
  readonly events?: number;
  readonly floorMs?: number;
  readonly facadeMs?: number;
  readonly chainedMs?: number;
  /** facade ÷ floor, chained ÷ floor, chained ÷ facade. */
  readonly facadeToFloor?: number;
  readonly chainedToFloor?: number;
  readonly chainedToFacade?: number;
  /** The facade's time per source event (ns). */
  readonly facadeNsPerEvent?: number;
  /** The facade's memory: bytes per history message (issuer records excluded) and per stored value, peak ÷ final history. */
  readonly bytesPerMessage?: number;
  readonly bytesPerValue?: number;
  readonly peakToHistory?: number;
  readonly peakHeapMB?: number;
  readonly historyMB?: number;
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
  readonly perDelta: Partial<
    Record<VariantName, { readonly fewNs?: number; readonly manyNs?: number; readonly ratio?: number }>
  >;
  /** How many times faster the pipeline (b) is than the reference (d), per stream. */
  readonly speedupVsReference: Record<string, Bounded>;
  readonly targets: readonly TargetResult[];
  /** Issue 13: the conversations, shape by shape and size by size, and the growth exponents of the facade and the chain. */
  readonly conversations?: readonly ConversationRow[];
  readonly conversationGrowth?: Partial<
    Record<ConversationShape, { readonly facade?: number; readonly chained?: number }>
  >;
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
  if (!small?.medianMs || !large?.medianMs || small.spec.kind !== "deltas" || large.spec.kind !== "deltas")
    return undefined;
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
  /** Issue 13: conversation shapes and their sizes (runs), smallest first. */
  readonly shapes: readonly ConversationShape[];
  readonly runs: readonly number[];
}

/** Growth, per-delta costs, speed-ups and the targets of issue 5 (on wall time, and on CPU time). */
export function analyse(cells: readonly CellResult[], plan: Plan): Omit<BenchResults, "meta" | "cells"> {
  const wall = analyseTimes(cells, plan);
  const onCpu = withFloorRatios(
    cells.map((c) => (c.status === "ok" ? finishCell({ ...c, samplesMs: c.cpuSamplesMs }) : c)),
  );
  return { ...wall, targetsOnCpuTime: analyseTimes(onCpu, plan).targets };
}

function analyseTimes(
  cells: readonly CellResult[],
  plan: Plan,
): Omit<BenchResults, "meta" | "cells" | "targetsOnCpuTime"> {
  const variants: VariantName[] = ["floor", "pipeline", "validated", "reference"];
  const [big, mid] = [plan.sizes[plan.sizes.length - 1]!, plan.sizes[plan.sizes.length - 2]];
  const growthExponentOut: BenchResults["growthExponent"] = {};
  const perDelta: BenchResults["perDelta"] = {};
  for (const v of variants) {
    if (mid !== undefined) {
      for (const form of plan.forms) {
        const g = growthExponent(
          find(cells, v, { kind: "deltas", form, n: mid }),
          find(cells, v, { kind: "deltas", form, n: big }),
        );
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
    const s = speedup(
      c,
      cells.find((r) => r.variant === "reference" && r.stream === c.stream),
    );
    if (s) speedupVsReference[c.stream] = s;
  }
  const conversations = conversationRows(cells, plan);
  const conversationGrowth = growthOfConversations(conversations, plan);
  return {
    growthExponent: growthExponentOut,
    perDelta,
    speedupVsReference,
    targets: [
      ...targets(cells, plan, growthExponentOut, perDelta, speedupVsReference),
      ...conversationTargets(cells, plan, conversations, conversationGrowth),
    ],
    conversations,
    conversationGrowth,
  };
}

function conversationRows(cells: readonly CellResult[], plan: Plan): ConversationRow[] {
  const rows: ConversationRow[] = [];
  for (const shape of plan.shapes) {
    for (const runs of plan.runs) {
      const spec: StreamSpec = { kind: "conversation", shape, runs };
      const [floorCell, facade, chained] = (["floor", "pipeline", "chained"] as const).map((v) => find(cells, v, spec));
      if (floorCell === undefined && facade === undefined && chained === undefined) continue;
      const ratio = (a?: number, b?: number): number | undefined =>
        a !== undefined && b !== undefined ? a / b : undefined;
      const memory = facade?.memory;
      const messageBytes = memory ? memory.historyBytes - memory.issuerBytes : undefined;
      rows.push({
        shape,
        runs,
        events: facade?.events ?? floorCell?.events,
        floorMs: floorCell?.medianMs,
        facadeMs: facade?.medianMs,
        chainedMs: chained?.medianMs,
        facadeToFloor: ratio(facade?.medianMs, floorCell?.medianMs),
        chainedToFloor: ratio(chained?.medianMs, floorCell?.medianMs),
        chainedToFacade: ratio(chained?.medianMs, facade?.medianMs),
        facadeNsPerEvent:
          facade?.medianMs !== undefined && facade.events ? (facade.medianMs * 1e6) / facade.events : undefined,
        bytesPerMessage: memory && memory.historyMessages > 0 ? messageBytes! / memory.historyMessages : undefined,
        bytesPerValue: memory && memory.storedValues > 0 ? memory.issuerBytes / memory.storedValues : undefined,
        peakToHistory: memory && memory.historyBytes > 0 ? memory.peakHeapBytes / memory.historyBytes : undefined,
        peakHeapMB: memory ? bytesToMB(memory.peakHeapBytes) : undefined,
        historyMB: memory ? bytesToMB(memory.historyBytes) : undefined,
      });
    }
  }
  return rows;
}

/** log(t(largest)/t(smallest)) / log(runs ratio), per shape, for the facade and the chain. */
function growthOfConversations(
  rows: readonly ConversationRow[],
  plan: Plan,
): NonNullable<BenchResults["conversationGrowth"]> {
  const out: NonNullable<BenchResults["conversationGrowth"]> = {};
  const [small, large] = [plan.runs[0], plan.runs[plan.runs.length - 1]];
  if (small === undefined || large === undefined || small === large) return out;
  for (const shape of plan.shapes) {
    const a = rows.find((r) => r.shape === shape && r.runs === small);
    const b = rows.find((r) => r.shape === shape && r.runs === large);
    const g = (x?: number, y?: number): number | undefined =>
      x && y ? Math.log(y / x) / Math.log(large / small) : undefined;
    out[shape] = { facade: g(a?.facadeMs, b?.facadeMs), chained: g(a?.chainedMs, b?.chainedMs) };
  }
  return out;
}

/** M1–M4 (issue 13). */
function conversationTargets(
  cells: readonly CellResult[],
  plan: Plan,
  rows: readonly ConversationRow[],
  growth: NonNullable<BenchResults["conversationGrowth"]>,
): TargetResult[] {
  if (rows.length === 0) return [];
  const out: TargetResult[] = [];
  const at4k = plan.shapes.map((shape) => rows.find((r) => r.shape === shape && r.runs === 4_000));
  out.push({
    id: "M1",
    description: "conversations at 4000 runs: facade time / floor",
    measured: plan.shapes
      .map(
        (shape, i) =>
          `${shape} ${at4k[i]?.facadeToFloor !== undefined ? `${at4k[i].facadeToFloor.toFixed(2)}×` : "n/a"}`,
      )
      .join(", "),
    threshold: "<= 4×",
    pass: at4k.every((r) => r?.facadeToFloor !== undefined && r.facadeToFloor <= 4),
  });
  const [small, large] = [plan.runs[0]!, plan.runs[plan.runs.length - 1]!];
  const gs = plan.shapes.map((shape) => growth[shape]?.facade);
  out.push({
    id: "M2",
    description: `growth exponent of the facade, ${small}→${large} runs`,
    measured: plan.shapes
      .map(
        (shape, i) =>
          `${shape} ${gs[i] !== undefined ? gs[i].toFixed(3) : "n/a"} (chained ${growth[shape]?.chained?.toFixed(3) ?? "n/a"})`,
      )
      .join(", "),
    threshold: "<= 1.05",
    pass: gs.every((g) => g !== undefined && g <= 1.05),
  });
  // M3: the six operators piped vs the facade, on the single-message stream (largest N, both forms) and the mixed conversation (4,000 runs).
  const big = plan.sizes[plan.sizes.length - 1]!;
  const pairs: [string, StreamSpec][] = [
    ...plan.forms.map((form): [string, StreamSpec] => [`${form} N=${big}`, { kind: "deltas", form, n: big }]),
    ["mixed runs=4000", { kind: "conversation", shape: "mixed", runs: 4_000 }],
  ];
  const m3 = pairs.map(([label, spec]) => {
    const facade = find(cells, "pipeline", spec)?.medianMs;
    const chained = find(cells, "chained", spec)?.medianMs;
    return { label, ratio: facade !== undefined && chained !== undefined ? chained / facade : undefined };
  });
  out.push({
    id: "M3",
    description: "the six operators piped: time / facade's",
    measured: m3.map((m) => `${m.label} ${m.ratio !== undefined ? `${m.ratio.toFixed(2)}×` : "n/a"}`).join(", "),
    threshold: "<= 1.5×",
    pass: m3.every((m) => m.ratio !== undefined && m.ratio <= 1.5),
  });
  const atLarge = plan.shapes.map((shape) => rows.find((r) => r.shape === shape && r.runs === large));
  out.push({
    id: "M4",
    description: `peak heap of the facade at ${large} runs / its final history's heap`,
    measured: plan.shapes
      .map((shape, i) => {
        const r = atLarge[i];
        return `${shape} ${r?.peakToHistory !== undefined ? `${r.peakToHistory.toFixed(2)}× (${r.peakHeapMB} MB / ${r.historyMB} MB)` : "n/a"}`;
      })
      .join(", "),
    threshold: "<= 2×",
    pass: atLarge.every((r) => r?.peakToHistory !== undefined && r.peakToHistory <= 2),
  });
  return out;
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
      pd?.ratio !== undefined
        ? `${pd.manyNs!.toFixed(0)} ns vs ${pd.fewNs!.toFixed(0)} ns = ${pd.ratio.toFixed(2)}×`
        : "n/a",
    threshold: "<= 2×",
    pass: pd?.ratio !== undefined && pd.ratio <= 2,
  });
  return out;
}

const priorOf = (spec: StreamSpec): number => (spec.kind === "long" ? spec.prior : 0);

export const fmtRate = (perSec: number): string =>
  perSec >= 1e6
    ? `${(perSec / 1e6).toFixed(2)}M/s`
    : perSec >= 1e3
      ? `${(perSec / 1e3).toFixed(1)}k/s`
      : `${perSec.toFixed(0)}/s`;

export const fmtBounded = (b: Bounded): string =>
  `${b.bound === ">=" ? "≥ " : ""}${b.value >= 100 ? b.value.toFixed(0) : b.value.toFixed(1)}×`;

const fmtMs = (ms: number): string =>
  ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : ms >= 10 ? `${ms.toFixed(1)} ms` : `${ms.toFixed(3)} ms`;

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
  if (growthRows.length)
    lines.push(
      heading("Growth exponent (1 = linear, 2 = quadratic)", markdown),
      table(["variant", "form", "exponent"], growthRows, markdown),
      "",
    );

  const pdRows = Object.entries(results.perDelta).map(([variant, p]) => [
    variant,
    p.fewNs !== undefined ? `${p.fewNs.toFixed(0)} ns` : "n/a",
    p.manyNs !== undefined ? `${p.manyNs.toFixed(0)} ns` : "n/a",
    p.ratio !== undefined ? `${p.ratio.toFixed(2)}×` : "n/a",
  ]);
  if (pdRows.length)
    lines.push(
      heading("Per-delta cost, long conversation", markdown),
      table(["variant", "few prior", "many prior", "ratio"], pdRows, markdown),
      "",
    );

  const spRows = Object.entries(results.speedupVsReference).map(([stream, b]) => [stream, fmtBounded(b)]);
  if (spRows.length)
    lines.push(
      heading("Pipeline (b) vs @ag-ui/client chain (d)", markdown),
      table(["stream", "speed-up"], spRows, markdown),
      "",
    );

  if (results.conversations && results.conversations.length > 0) {
    const x = (v?: number): string => (v !== undefined ? `${v.toFixed(2)}×` : "");
    const convRows = results.conversations.map((r) => [
      r.shape,
      String(r.runs),
      r.events !== undefined ? String(r.events) : "",
      r.floorMs !== undefined ? fmtMs(r.floorMs) : "",
      r.facadeMs !== undefined ? fmtMs(r.facadeMs) : "",
      x(r.facadeToFloor),
      r.facadeNsPerEvent !== undefined ? `${r.facadeNsPerEvent.toFixed(0)} ns` : "",
      r.chainedMs !== undefined ? fmtMs(r.chainedMs) : "",
      x(r.chainedToFloor),
      x(r.chainedToFacade),
      r.bytesPerMessage !== undefined ? `${r.bytesPerMessage.toFixed(0)} B` : "",
      r.bytesPerValue !== undefined ? `${r.bytesPerValue.toFixed(0)} B` : "",
      r.peakToHistory !== undefined ? `${r.peakHeapMB} / ${r.historyMB} MB = ${r.peakToHistory.toFixed(2)}×` : "",
    ]);
    lines.push(
      heading("Conversations (issue 13): floor, facade, the six operators chained", markdown),
      table(
        [
          "shape",
          "runs",
          "events",
          "floor",
          "facade",
          "× floor",
          "per event",
          "chained",
          "× floor",
          "× facade",
          "B/message",
          "B/value",
          "peak / history heap",
        ],
        convRows,
        markdown,
      ),
      "",
    );
    const gRows = Object.entries(results.conversationGrowth ?? {}).map(([shape, g]) => [
      shape,
      g?.facade?.toFixed(3) ?? "n/a",
      g?.chained?.toFixed(3) ?? "n/a",
    ]);
    if (gRows.length)
      lines.push(
        heading("Conversation growth exponent (first → last size)", markdown),
        table(["shape", "facade", "chained"], gRows, markdown),
        "",
      );
  }

  lines.push(
    heading("Targets (issues 5 and 13)", markdown),
    table(
      ["", "target", "measured (wall time)", "threshold", "result", "on cpu time"],
      results.targets.map((t, i) => {
        const cpu = results.targetsOnCpuTime[i];
        return [
          t.id,
          t.description,
          t.measured,
          t.threshold,
          t.pass ? "PASS" : "FAIL",
          cpu ? `${cpu.pass ? "PASS" : "FAIL"} (${cpu.measured})` : "",
        ];
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
  const line = (r: readonly string[]): string =>
    r
      .map((cell, i) => cell.padEnd(widths[i]!))
      .join("  ")
      .trimEnd();
  return [line(header), widths.map((w) => "-".repeat(w)).join("  "), ...rows.map(line)].join("\n");
}
