import type { AguiEvent } from "../core/types";
import { runCount, type CheckOutcome } from "./outcome";
import { redact, type RedactOptions } from "./redact";

/**
 * The `--json` document (schema/check-result.v1.json): the outcome, the first failure, counts,
 * one entry per run, every warning, the validated events and the final history. Encrypted values
 * and reasoning text are redacted wherever they occur unless asked for (see `redact`).
 */
export function renderJson(r: CheckOutcome, events: readonly AguiEvent[], redaction: RedactOptions): string {
  const f = r.failure;
  const result = {
    // The document's version: its JSON Schema is schema/check-result.v<N>.json.
    schemaVersion: 1,
    outcome: f ? "failed" : "completed",
    input: { label: r.label, format: r.format ?? null, events: r.totalEvents, complete: r.totalKnown },
    error: f
      ? {
          code: f.code,
          rule: f.rule,
          eventIndex: f.eventIndex,
          line: f.line,
          eventType: f.eventType,
          synthesizedType: f.synthesizedType,
          ids: f.ids,
          message: f.message,
          explanation: { rule: f.explanation.rule, text: f.explanation.text },
        }
      : null,
    counts: { runs: runCount(r), warnings: r.warnings, history: r.historyCounts },
    runs: r.runs.map((run) => ({
      number: run.number,
      runId: run.runId ?? null,
      threadId: run.threadId ?? null,
      end: run.end,
      events: run.events,
      spans: run.spans.length,
      reasoningMessages: run.reasoning.size,
      encryptedValues: run.values,
      textMessages: run.textMessages.size,
      toolCalls: run.toolCalls.size,
      warnings: run.warnings,
    })),
    warnings: redact(r.allWarnings ?? [], redaction),
    events: redact(events, redaction),
    history: { messages: redact(r.history.messages, redaction), incomplete: r.history.incomplete },
  };
  return `${JSON.stringify(result, null, 2)}\n`;
}
