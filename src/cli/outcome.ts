import { quotedId } from "../core/errors";
import type { ReasoningWarning } from "../core/types";
import type { ReasoningHistory } from "../history/types";
import type { Explanation } from "./explain";
import type { RunReport } from "./run-report";
import { plural } from "../core/plural";

/** Why the check failed: a protocol violation the pipeline found, or a check of its own (`NO_RUN`). */
export interface CheckFailure {
  readonly code: string;
  readonly rule: string;
  /** Source index of the event that caused it; `null` when no event did (`NO_RUN`). */
  readonly eventIndex: number | null;
  /** Line of that event in the input (JSON Lines, SSE), when known. */
  readonly line: number | null;
  /** Type of the source event there (a chunk, when the pipeline judged the event it implies). */
  readonly eventType: string | null;
  /** The type the pipeline judged, when it synthesized it from that source event. */
  readonly synthesizedType: string | null;
  readonly ids: readonly string[];
  /** The pipeline's own message (ids, types and counts only, D-REDACT). */
  readonly message: string;
  readonly explanation: Explanation;
}

/** What the final history holds, snapshots included. */
export interface HistoryCounts {
  readonly messages: number;
  /** Messages per role, in order of first appearance. */
  readonly roles: Readonly<Record<string, number>>;
  readonly reasoningMessages: number;
  /** Encrypted values held: on messages and on tool calls. */
  readonly encryptedValues: number;
  readonly toolCalls: number;
  readonly incomplete: number;
}

/** Everything a report is made of. */
export interface CheckOutcome {
  /** What was read: a path, `stdin` or a URL. */
  readonly label: string;
  /** The input format (`JSON Lines`, `SSE`, …). */
  readonly format: string | undefined;
  /** Events in the input: all of them for a file (read to the end after a failure), else those read. */
  readonly totalEvents: number;
  /** Whether `totalEvents` counts the whole input (a file read to its end). */
  readonly totalKnown: boolean;
  readonly runs: readonly RunReport[];
  readonly failure: CheckFailure | undefined;
  readonly warnings: number;
  /** Every warning, only when the output lists them all (`--json`); else `undefined`. */
  readonly allWarnings: readonly ReasoningWarning[] | undefined;
  readonly history: ReasoningHistory;
  readonly historyCounts: HistoryCounts;
  /** Line where source event `index` starts (JSON Lines, SSE), when known. */
  lineOf(index: number): number | undefined;
}

export function countHistory(history: ReasoningHistory): HistoryCounts {
  const roles: Record<string, number> = {};
  let reasoningMessages = 0;
  let encryptedValues = 0;
  let toolCalls = 0;
  for (const m of history.messages) {
    const message = m as {
      role: string;
      encryptedValue?: unknown;
      toolCalls?: readonly { encryptedValue?: unknown }[];
    };
    roles[message.role] = (roles[message.role] ?? 0) + 1;
    if (message.role === "reasoning") reasoningMessages++;
    if (typeof message.encryptedValue === "string") encryptedValues++;
    for (const call of message.toolCalls ?? []) {
      toolCalls++;
      if (typeof call.encryptedValue === "string") encryptedValues++;
    }
  }
  return {
    messages: history.messages.length,
    roles,
    reasoningMessages,
    encryptedValues,
    toolCalls,
    incomplete: history.incomplete.length,
  };
}

/** `1 event`, `2 events`, `1,000 events`. */
export function count(n: number, noun: string): string {
  return plural(n, noun, grouped(n));
}

/**
 * `1,234,567`: what `n.toLocaleString("en-US")` writes, without its cost for a count (ICU formats
 * one number in about a microsecond: a report of 15,000 runs formats 200,000 of them).
 */
export function grouped(n: number): string {
  if (!Number.isSafeInteger(n) || n < 0 || Object.is(n, -0)) return n.toLocaleString("en-US");
  const digits = String(n);
  if (digits.length <= 3) return digits;
  const head = digits.length % 3 || 3;
  let out = digits.slice(0, head);
  for (let i = head; i < digits.length; i += 3) out += `,${digits.slice(i, i + 3)}`;
  return out;
}

/** Runs the stream contained (the pre-run bucket is not a run). */
export function runCount(outcome: CheckOutcome): number {
  return outcome.runs.filter((run) => run.number > 0).length;
}

/** `1 run, 0 warnings`: what the verdict counts. */
export function summary(r: CheckOutcome): string {
  return `${count(runCount(r), "run")}, ${count(r.warnings, "warning")}`;
}

/** `CODE at event #3 TYPE: explanation. detail`: the failure in one line, for the CI formats. */
export function failureLine(f: CheckFailure, detail: string): string {
  const where = f.eventIndex === null ? "" : ` at event #${f.eventIndex}${f.eventType ? ` ${f.eventType}` : ""}`;
  return `${f.code}${where}: ${f.explanation.text}. ${detail}`.trim();
}

/** `12 more warnings in run 2 (--json lists them all)`: what the CI formats say of the warnings they leave out. */
export function moreWarnings(run: RunReport): string | undefined {
  const more = run.warnings - run.warningsShown.length;
  return more > 0 ? `${grouped(more)} more warnings in run ${run.number} (--json lists them all)` : undefined;
}

/**
 * What a report adds to the explanation: the pipeline's own message, or — where the explanation
 * replaces it because its advice would mislead (a synthesized event's view) — the ids involved.
 */
export function failureDetail(f: CheckFailure): string {
  if (!f.explanation.replacesMessage) return f.message;
  return f.ids.length > 0 ? `ids: ${f.ids.map(quotedId).join(", ")}` : "";
}
