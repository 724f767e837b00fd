import type { ReasoningHistory } from "../history/types";
import { ReasoningProtocolError, truncateId } from "../core/errors";
import { formatWarning } from "../core/warnings";
import { EXPLANATIONS } from "./explain";
import { redactValues } from "./redact";
import type { RunReport } from "./run-report";

/** Everything the human report is made of. */
export interface ReportInput {
  /** What was read: a path, `stdin` or a URL. */
  readonly label: string;
  readonly format: string | undefined;
  /** Source events read. */
  readonly events: number;
  readonly runs: readonly RunReport[];
  readonly error: ReasoningProtocolError | undefined;
  /** Line of the failing event in the input, when known. */
  readonly errorLine: number | undefined;
  readonly history: ReasoningHistory;
  readonly showHistory: boolean;
  readonly showValues: boolean;
}

/** At most this many warnings per run are listed; `--json` has them all. */
const WARNINGS_SHOWN = 50;
/** At most this many ids per list. */
const IDS_SHOWN = 10;

/** The human report. Never contains reasoning text or (without `showValues`) an encrypted value. */
export function renderReport(r: ReportInput): string {
  const out: string[] = [];
  const what = [r.format, count(r.events, "event")].filter(Boolean).join(", ");
  out.push(`agui-reasoning check: ${r.label} (${what})`, "");
  if (r.runs.length === 0) out.push("No run in the stream.", "");
  for (const run of r.runs) out.push(...renderRun(run, r.showValues), "");

  if (r.error) out.push(...renderViolation(r.error, r.errorLine), "");
  if (r.showHistory) out.push(...renderHistory(r.history, r.showValues), "");

  const warnings = r.runs.reduce((n, run) => n + run.warnings.length, 0);
  const runs = count(r.runs.filter((run) => run.number > 0).length, "run");
  if (!r.error) out.push(`✓ valid: ${runs}, ${count(warnings, "warning")}`);
  else if (r.error.code === "RUN_TRUNCATED") out.push(`✗ truncated: ${runs}, ${count(warnings, "warning")} (exit 1)`);
  else out.push(`✗ violation: ${runs}, ${count(warnings, "warning")} (exit 1)`);
  return `${out.join("\n")}\n`;
}

function renderRun(run: RunReport, showValues: boolean): string[] {
  const title =
    run.number === 0
      ? "Before any run"
      : [`Run ${run.number}`, run.runId && `runId ${quote(run.runId)}`, run.threadId && `thread ${quote(run.threadId)}`]
          .filter(Boolean)
          .join(" · ");
  const lines = [`${title} — ${run.end}`];
  lines.push(row("spans", run.spans.length, ids(run.spans)));
  lines.push(
    row(
      "reasoning messages",
      run.reasoning.size,
      listed([...run.reasoning].map(([id, chars]) => `${quote(id)} ${count(chars, "character")}`)),
    ),
  );
  lines.push(
    row(
      "encrypted values",
      run.values.length,
      listed(
        run.values.map(
          (v) =>
            `${v.subtype} ${quote(v.entityId)} ${count(v.bytes, "byte")}${showValues ? ` = ${JSON.stringify(v.value)}` : ""}`,
        ),
        showValues ? Infinity : IDS_SHOWN,
      ),
    ),
  );
  lines.push(row("text messages", run.textMessages.size, ids([...run.textMessages])));
  lines.push(row("tool calls", run.toolCalls.size, ids([...run.toolCalls])));
  lines.push(row("events delivered", run.events, ""));
  lines.push(row("warnings", run.warnings.length, ""));
  for (const w of run.warnings.slice(0, WARNINGS_SHOWN)) lines.push(`    ${formatWarning(w)}`);
  if (run.warnings.length > WARNINGS_SHOWN) lines.push(`    … and ${run.warnings.length - WARNINGS_SHOWN} more (--json lists them all)`);
  return lines;
}

function renderViolation(e: ReasoningProtocolError, line: number | undefined): string[] {
  const where = line !== undefined ? ` (line ${line})` : "";
  return [
    `✗ ${e.code === "RUN_TRUNCATED" ? "Truncated" : "First violation"} at event #${e.eventIndex}${where} ${e.eventType}: ${e.code} (${e.rule})`,
    `  ${EXPLANATIONS[e.code] ?? e.code}.`,
    `  ${e.message}`,
  ];
}

function renderHistory(history: ReasoningHistory, showValues: boolean): string[] {
  const shown = showValues ? history.messages : redactValues(history.messages);
  const lines = [`History: ${count(history.messages.length, "message")}`];
  for (const m of shown) lines.push(`  ${JSON.stringify(m)}`);
  for (const i of history.incomplete) lines.push(`  incomplete: ${i.kind} ${quote(i.id)} (${i.reason})`);
  return lines;
}

function row(label: string, n: number, detail: string): string {
  return `  ${label.padEnd(19)}${n.toLocaleString("en-US").padStart(9)}${detail ? `  ${detail}` : ""}`;
}

function ids(list: readonly string[]): string {
  return listed(list.map(quote));
}

function listed(items: readonly string[], max = IDS_SHOWN): string {
  if (items.length <= max) return items.join(", ");
  return `${items.slice(0, max).join(", ")}, … and ${items.length - max} more`;
}

const quote = (id: string): string => JSON.stringify(truncateId(id));

function count(n: number, noun: string): string {
  return `${n.toLocaleString("en-US")} ${noun}${n === 1 ? "" : "s"}`;
}
