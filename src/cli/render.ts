import type { ReasoningHistory } from "../history/types";
import { quotedId } from "../core/errors";
import { formatWarning } from "../core/warnings";
import {
  count,
  failureDetail,
  grouped,
  summary,
  type CheckFailure,
  type CheckOutcome,
  type HistoryCounts,
} from "./outcome";
import { redact, type RedactOptions } from "./redact";
import { VALUES_KEPT, type RunReport, type WarningGroup } from "./run-report";

/** How the human report is asked for. */
export interface HumanOptions {
  /** Include the derived history's messages (`--history`). */
  readonly showHistory: boolean;
  /** What may be printed of the stream's secrets (`--show-values` lists every encrypted value). */
  readonly redaction: RedactOptions;
}

/** At most this many ids per list. */
const IDS_SHOWN = 10;

/**
 * The human report, in pieces: its head, a block per run, its end. Never contains reasoning text or
 * an encrypted value unless asked (`--show-…`). A report of 15,874 runs is 6.8 MB: held whole until
 * the end, its lines cost `check` more than making them did (issue 22), so the command writes the
 * pieces as they come (check.ts).
 */
export function writeReport(r: CheckOutcome, options: HumanOptions, write: (piece: string) => void): void {
  const events = r.totalKnown ? count(r.totalEvents, "event") : `at least ${count(r.totalEvents, "event")}`;
  write(`agui-reasoning check: ${r.label} (${[r.format, events].filter(Boolean).join(", ")})\n\n`);
  if (r.runs.length === 0 && r.failure?.code !== "NO_RUN") write("No run in the stream.\n\n");
  for (const run of r.runs) write(`${renderRun(run, options.redaction.showValues).join("\n")}\n\n`);

  const end: string[] = [];
  if (r.failure) end.push(...renderFailure(r.failure), "");
  end.push(...renderHistory(r.history, r.historyCounts, options), "");
  end.push(verdictLine(r));
  write(`${end.join("\n")}\n`);
}

/** What failed, where it is not a violation: the verdict line's word, and a stream failure's heading. */
const FAILED: Readonly<Record<string, string>> = {
  RUN_TRUNCATED: "truncated",
  NO_RUN: "no run",
  MAX_WARNINGS: "too many warnings",
  LOSSY_WARNINGS: "lossy warnings",
};

/** The report's last line: `✓ valid: 1 run, 0 warnings`, or what failed and `(exit 1)`. */
export function verdictLine(r: CheckOutcome): string {
  if (!r.failure) return `✓ valid: ${summary(r)}`;
  return `✗ ${FAILED[r.failure.code] ?? "violation"}: ${summary(r)} (exit 1)`;
}

function renderRun(run: RunReport, showValues: boolean): string[] {
  const title =
    run.number === 0
      ? "Before any run"
      : [
          `Run ${run.number}`,
          run.runId && `runId ${quotedId(run.runId)}`,
          run.threadId && `thread ${quotedId(run.threadId)}`,
        ]
          .filter(Boolean)
          .join(" · ");
  const lines = [`${title} — ${run.end}`];
  lines.push(row("spans", run.spans.length, ids(run.spans)));
  lines.push(
    row(
      "reasoning messages",
      run.reasoning.size,
      listed([...run.reasoning].map(([id, chars]) => `${quotedId(id)} ${count(chars, "character")}`)),
    ),
  );
  const values = run.valuesShown.map(
    (v) =>
      `${v.subtype} ${quotedId(v.entityId)} ${count(v.bytes, "byte")}${showValues ? ` = ${JSON.stringify(v.value)}` : ""}`,
  );
  lines.push(row("encrypted values", run.values, listed(values, showValues ? Infinity : VALUES_KEPT, run.values)));
  lines.push(row("text messages", run.textMessages.size, ids([...run.textMessages])));
  lines.push(row("tool calls", run.toolCalls.size, ids([...run.toolCalls])));
  lines.push(row("events delivered", run.events, ""));
  lines.push(row("warnings", run.warnings, ""));
  for (const group of run.warningGroups.values()) {
    lines.push(`    ${formatWarning(group.first)}`);
    if (group.count > 1) lines.push(`      ${repeated(group)}`);
  }
  return lines;
}

/** `+ 5 more THINKING_UPCAST, at events #2, #3, …`: the rest of a group of one code. */
function repeated(group: WarningGroup): string {
  const more = group.count - 1;
  const at = group.others.map((i) => `#${i}`);
  const rest = more - at.length;
  const where = at.length > 0 ? `, at event${more > 1 ? "s" : ""} ${at.join(", ")}${rest > 0 ? ", …" : ""}` : "";
  return `+ ${grouped(more)} more ${group.first.code}${where}${more > 1 ? " (--json lists them all)" : ""}`;
}

export function renderFailure(f: CheckFailure): string[] {
  if (f.eventIndex === null) {
    const heading = FAILED[f.code] ?? "failed";
    const lines = [
      `✗ ${heading[0]!.toUpperCase()}${heading.slice(1)}: ${f.code} (${f.rule})`,
      `  ${f.explanation.text}.`,
    ];
    if (f.code !== "NO_RUN") lines.push(`  ${f.message}`);
    return lines;
  }
  const where = f.line !== null ? ` (line ${f.line})` : "";
  const lines = [
    `✗ ${f.code === "RUN_TRUNCATED" ? "Truncated" : "First violation"} at event #${f.eventIndex}${where} ${f.eventType}: ${f.code} (${f.rule})`,
  ];
  if (f.synthesizedType !== null) lines.push(`  judged as the ${f.synthesizedType} this ${f.eventType} implies`);
  lines.push(`  ${f.explanation.text}${f.explanation.rule !== f.rule ? ` (${f.explanation.rule})` : ""}.`);
  const detail = failureDetail(f);
  if (detail) lines.push(`  ${detail}`);
  return lines;
}

function renderHistory(history: ReasoningHistory, counts: HistoryCounts, options: HumanOptions): string[] {
  const roles = Object.entries(counts.roles).map(([role, n]) => `${grouped(n)} ${role}`);
  const lines = [
    `History: ${count(counts.messages, "message")}${roles.length > 0 ? ` (${roles.join(", ")})` : ""}, ` +
      `${count(counts.encryptedValues, "encrypted value")}, ${count(counts.toolCalls, "tool call")}, ${grouped(counts.incomplete)} incomplete`,
  ];
  if (!options.showHistory) return lines;
  for (const m of redact(history.messages, options.redaction)) lines.push(`  ${JSON.stringify(m)}`);
  for (const i of history.incomplete) lines.push(`  incomplete: ${i.kind} ${quotedId(i.id)} (${i.reason})`);
  return lines;
}

function row(label: string, n: number, detail: string): string {
  return `  ${label.padEnd(19)}${grouped(n).padStart(9)}${detail ? `  ${detail}` : ""}`;
}

function ids(list: readonly string[]): string {
  return listed(list.map(quotedId));
}

/** The first `max` items, and how many more of `total` there are. */
function listed(items: readonly string[], max = IDS_SHOWN, total = items.length): string {
  const shown = items.slice(0, max);
  const more = total - shown.length;
  return more > 0 ? `${shown.join(", ")}, … and ${grouped(more)} more` : shown.join(", ");
}
