/**
 * The verdict of the check, shared by the command and `toBeConformant` (one truth, D-PATHS): the
 * violation the pipeline found, as the reports show it, and the check's own failures of a stream the
 * pipeline found valid (NO_RUN, MAX_WARNINGS, LOSSY_WARNINGS).
 */
import type { ReasoningProtocolError } from "../core/errors";
import { EXPLANATIONS, explain, type CheckOnlyCode } from "./explain";
import { count, runCount, type CheckFailure, type CheckOutcome } from "./outcome";
import type { SourceTrail } from "./source-trail";

/** What turns a valid stream into a failed check. */
export interface Gates {
  /** A stream without any run passes. */
  readonly allowEmpty?: boolean;
  /** More warnings than this fail (0: any). */
  readonly maxWarnings?: number;
  /** A lossy warning fails. */
  readonly failOnLossy?: boolean;
}

/** The violation as the reports show it: the source line and type, and an explanation chosen by what happened. */
export function protocolFailure(
  error: ReasoningProtocolError,
  trail: SourceTrail,
  lineOf: (index: number) => number | undefined,
): CheckFailure {
  const sourceType = trail.typeAt(error.eventIndex);
  const eventType = sourceType ?? error.eventType;
  return {
    code: error.code,
    rule: error.rule,
    eventIndex: error.eventIndex,
    line: lineOf(error.eventIndex) ?? null,
    eventType,
    synthesizedType: eventType !== error.eventType ? error.eventType : null,
    ids: error.ids,
    message: error.message,
    explanation: explain({
      code: error.code,
      rule: error.rule,
      eventType: error.eventType,
      sourceType,
      ids: error.ids,
      chunked: (id) => trail.chunked(id),
    }),
  };
}

/**
 * The check's own failures of a stream the pipeline found valid: no run at all (R-RUN-1: a stream
 * begins with RUN_STARTED or RUN_ERROR; unless `--allow-empty`), more warnings than `--max-warnings`,
 * a lossy warning with `--fail-on-lossy`.
 */
export function checkFailure(outcome: CheckOutcome, args: Gates): CheckFailure | undefined {
  if (runCount(outcome) === 0 && !args.allowEmpty)
    return streamFailure("NO_RUN", "R-RUN-1", `the stream holds ${count(outcome.totalEvents, "event")} and no run`);
  if (args.maxWarnings !== undefined && outcome.warnings > args.maxWarnings) {
    const detail = `${count(outcome.warnings, "warning")}, more than --max-warnings ${args.maxWarnings} allows`;
    return streamFailure("MAX_WARNINGS", "D-WARN", detail);
  }
  const lost = outcome.runs.reduce((n, run) => n + run.lossyWarnings, 0);
  if (args.failOnLossy && lost > 0)
    return streamFailure("LOSSY_WARNINGS", "R-VER-7", `${count(lost, "lossy warning")} (--fail-on-lossy)`);
  return undefined;
}

function streamFailure(code: CheckOnlyCode, rule: string, detail: string): CheckFailure {
  return {
    code,
    rule,
    eventIndex: null,
    line: null,
    eventType: null,
    synthesizedType: null,
    ids: [],
    message: `${code} (${rule}): ${detail}`,
    explanation: { rule, text: EXPLANATIONS[code], replacesMessage: false },
  };
}
