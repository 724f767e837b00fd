import { byteLength, rawField } from "../core/json";
import type { AguiEvent, ReasoningWarning } from "../core/types";

/** How a run ended, as far as the check saw it. */
export type RunEnd =
  | "finished"
  | "cancelled"
  | "interrupted"
  /** The producer reported its own failure (RUN_ERROR): a valid stream, a failed run. */
  | "run error"
  /** The stream ended without a terminal event (D-TRUNC). */
  | "truncated"
  /** The check rejected the stream inside this run. */
  | "violation"
  /** Still open when the check stopped. */
  | "open";

/** An encrypted value stored on its target (`value` only with --show-values). */
export interface ValueSeen {
  readonly subtype: string;
  readonly entityId: string;
  readonly bytes: number;
  readonly value: string;
}

/** What one run contained. */
export interface RunReport {
  /** 1-based; 0 collects what came before any run started. */
  readonly number: number;
  readonly runId: string | undefined;
  readonly threadId: string | undefined;
  end: RunEnd;
  /** Validated events delivered in this run. */
  events: number;
  /** Span ids, in opening order (a reopened span id appears again). */
  readonly spans: string[];
  /** Reasoning message id → characters (Unicode code points) of content. */
  readonly reasoning: Map<string, number>;
  values: number;
  /** The first VALUES_KEPT values (all with `--show-values`). */
  readonly valuesShown: ValueSeen[];
  readonly textMessages: Set<string>;
  readonly toolCalls: Set<string>;
  /** A count, so that a stream of a million warnings takes no memory (#7, issue 12). */
  warnings: number;
  /** The first WARNINGS_KEPT warnings (`--json` lists them all). */
  readonly warningsShown: ReasoningWarning[];
  /** The lossy ones (R-VER-7: content was lost), for `--fail-on-lossy`. */
  lossyWarnings: number;
  /**
   * The warnings by code, in order of first appearance: the human report prints the first of each
   * and counts the rest (a legacy THINKING_* turn is one upcast warning per event). Bounded by the
   * codes the package has, whatever the stream.
   */
  readonly warningGroups: Map<string, WarningGroup>;
}

/** Every warning of one code in a run: the first in full, how many, and the event indices of the next GROUP_INDICES_KEPT. */
export interface WarningGroup {
  readonly first: ReasoningWarning;
  count: number;
  readonly others: number[];
}

const GROUP_INDICES_KEPT = 10;
export const WARNINGS_KEPT = 50;
export const VALUES_KEPT = 10;

/**
 * Folds what the check sees into one report per run: raw source events (to know where a run starts
 * before the pipeline has judged its RUN_STARTED, so its warnings land in the right run),
 * validated events, warnings and the failure.
 */
export class ReportBuilder {
  readonly runs: RunReport[] = [];
  /** `keepAllValues`: every value is listed (`--show-values`); else only the first VALUES_KEPT, without the value. */
  constructor(private readonly keepAllValues = false) {}
  // Collects what arrives before any run started (a stream that breaks R-RUN-1).
  private readonly before: RunReport = newRun(0, undefined, undefined);
  // The run that receives events and warnings now.
  private current: RunReport = this.before;
  // Reasoning messages whose last delta ended on a high surrogate (the pair may end in the next one).
  private readonly highSurrogateEnd = new Set<string>();

  /** A raw source event, before the pipeline processes it, and its `rawType`. */
  onSourceEvent(raw: unknown, type: unknown): void {
    // A RUN_ERROR may open a stream (a run that failed before it began, R-RUN-1); later it ends the current run.
    const opens = type === "RUN_STARTED" || (type === "RUN_ERROR" && this.current === this.before);
    if (!opens) return;
    const { runId, threadId } = raw as { runId?: unknown; threadId?: unknown };
    this.current = newRun(this.runs.length + 1, str(runId), str(threadId));
    this.highSurrogateEnd.clear();
    this.runs.push(this.current);
  }

  /** A validated event delivered by `events$`. */
  onEvent(event: AguiEvent): void {
    const run = this.current;
    run.events++;
    switch (event.type) {
      case "REASONING_START":
        run.spans.push(String(event.messageId));
        break;
      case "REASONING_MESSAGE_START":
        if (!run.reasoning.has(String(event.messageId))) run.reasoning.set(String(event.messageId), 0);
        break;
      case "REASONING_MESSAGE_CONTENT": {
        const id = String(event.messageId);
        const delta = String(event.delta);
        // A character split across two deltas (a surrogate pair) is one character, counted once.
        // (The set is nearly always empty: no lookup then.)
        const split = this.highSurrogateEnd;
        const joins = split.size > 0 && split.has(id) && isLowSurrogate(delta.charCodeAt(0));
        run.reasoning.set(id, (run.reasoning.get(id) ?? 0) + codePoints(delta) - (joins ? 1 : 0));
        if (delta !== "") {
          if (isHighSurrogate(delta.charCodeAt(delta.length - 1))) split.add(id);
          else if (split.size > 0) split.delete(id);
        }
        break;
      }
      case "REASONING_ENCRYPTED_VALUE": {
        const value = String(event.encryptedValue);
        run.values++;
        if (this.keepAllValues || run.valuesShown.length < VALUES_KEPT) {
          run.valuesShown.push({
            subtype: String(event.subtype),
            entityId: String(event.entityId),
            bytes: byteLength(value),
            value: this.keepAllValues ? value : "",
          });
        }
        break;
      }
      case "TEXT_MESSAGE_START":
        run.textMessages.add(String(event.messageId));
        break;
      case "TOOL_CALL_START":
        run.toolCalls.add(String(event.toolCallId));
        break;
      case "RUN_FINISHED": {
        const outcome = rawField(event.outcome, "type");
        run.end = outcome === "cancelled" ? "cancelled" : outcome === "interrupt" ? "interrupted" : "finished";
        break;
      }
      case "RUN_ERROR":
        run.end = "run error";
        break;
      default:
        break; // the other event types are counted in `events` only
    }
  }

  onWarning(warning: ReasoningWarning): void {
    const run = this.current;
    run.warnings++;
    if (warning.lossy === true) run.lossyWarnings++;
    if (run.warningsShown.length < WARNINGS_KEPT) run.warningsShown.push(warning);
    const group = run.warningGroups.get(warning.code);
    if (group === undefined) run.warningGroups.set(warning.code, { first: warning, count: 1, others: [] });
    else {
      group.count++;
      if (group.others.length < GROUP_INDICES_KEPT && warning.eventIndex !== undefined)
        group.others.push(warning.eventIndex);
    }
  }

  /** The pipeline failed: `truncated` for RUN_TRUNCATED, else a violation. */
  onFailure(code: string): void {
    this.current.end = code === "RUN_TRUNCATED" ? "truncated" : "violation";
  }

  /** Every run, with the pre-run bucket first when anything landed in it. */
  all(): RunReport[] {
    const b = this.before;
    return b.events > 0 || b.warnings > 0 || b.end !== "open" ? [b, ...this.runs] : this.runs;
  }
}

function newRun(number: number, runId: string | undefined, threadId: string | undefined): RunReport {
  return {
    number,
    runId,
    threadId,
    end: "open",
    events: 0,
    spans: [],
    reasoning: new Map(),
    values: 0,
    valuesShown: [],
    textMessages: new Set(),
    toolCalls: new Set(),
    warnings: 0,
    warningsShown: [],
    lossyWarnings: 0,
    warningGroups: new Map(),
  };
}

const str = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);

const isHighSurrogate = (c: number): boolean => c >= 0xd800 && c <= 0xdbff;
const isLowSurrogate = (c: number): boolean => c >= 0xdc00 && c <= 0xdfff;

/** Characters as a reader counts them: Unicode code points, not UTF-16 units. */
export function codePoints(text: string): number {
  let n = text.length;
  for (let i = 0; i < text.length - 1; i++) {
    if (isHighSurrogate(text.charCodeAt(i)) && isLowSurrogate(text.charCodeAt(i + 1))) {
      n--;
      i++;
    }
  }
  return n;
}
