/**
 * The contract every stage follows: a pure step `(state, event, ctx) → { state, out, warnings }`
 * that may throw a `ReasoningProtocolError`, run by the chain runner (docs/architecture.md).
 */

import type { ReasoningWarningCode } from "./warning-codes";

/**
 * An event as it travels between stages. Before `enforceSchema` nothing about it is known (it may
 * even be `null` or a number: hostile input must produce a clear error, never a `TypeError`), so
 * stages upstream of enforcement treat it as `unknown`; after enforcement it is a validated
 * AG-UI 1.0 event object.
 */
export interface AguiEvent {
  readonly type: string;
  readonly [field: string]: unknown;
}

/** Structured warning (decision D-WARN). Never carries a delta, reasoning text or an encrypted value (D-REDACT). */
export interface ReasoningWarning {
  /** Stable machine-readable code, one of `WARNING_CODES` (e.g. `UNKNOWN_EVENT_TYPE`, `UNKNOWN_ENTITY`). */
  readonly code: ReasoningWarningCode;
  /** One human sentence: event types, ids, JSON paths, counts and byte lengths only. */
  readonly message: string;
  /** The rule or decision id the warning implements (`R-PROC-6`, `D-UNKNOWN-ENTITY`, …). */
  readonly rule?: string;
  /** Type of the event that caused it, if any. */
  readonly eventType?: string;
  /** Index of the source event that caused it (0-based, in the source stream). */
  readonly eventIndex?: number;
  /** JSON pointer of a stripped/removed value, e.g. `/subtype`. */
  readonly path?: string;
  /** Ids involved (message ids, tool-call ids, span ids). */
  readonly ids?: readonly string[];
  /**
   * The warning reports content that was lost (R-REASON-19, R-VER-6/7): it cannot be silenced by
   * the `quiet` option. Present (`true`) only then, as `WARNING_CODES` says for the code and rule.
   */
  readonly lossy?: boolean;
}

/** Per-event context handed to every step. */
export interface StepContext {
  /** Index of the *source* event being processed (synthesized events share their trigger's index). */
  readonly index: number;
  /**
   * The lists an earlier link of the chain shortened in this event (enforcement removing an
   * unrecognised member, R-PROC-11): the JSON pointer of each list in the event as the chain's source
   * delivered it → the source index of each element kept, in order. A path a warning or error names
   * inside such a list names the source's position (D-EVENT-INDEX). Absent when no list was shortened.
   */
  readonly shortened?: ReadonlyMap<string, readonly number[]>;
}

/**
 * What a step returns (`out` and `warnings` read-only; `NONE` is shared). Valid until the same
 * stage's next `step`: hot stages reuse one result object, so callers read `out` before stepping again.
 */
export interface StepResult<S, O> {
  readonly state: S;
  readonly out: readonly O[];
  readonly warnings: readonly ReasoningWarning[];
  /**
   * The lists this step shortened in `out`'s event, as `StepContext.shortened` hands them to the
   * later links. Read only on a result with warnings (every removal is warned of).
   */
  readonly shortened?: ReadonlyMap<string, readonly number[]>;
}

/**
 * A pipeline stage. `step` must not mutate a state that may have been published (history); the
 * other stages' private states are threaded linearly (never reused after `step`), so they may be
 * updated in place.
 */
export interface Stage<S, I = AguiEvent, O = AguiEvent> {
  readonly name: string;
  /** A fresh state. */
  init(): S;
  /** Process one input event. Throws `ReasoningProtocolError` on a protocol violation. */
  step(state: S, event: I, ctx: StepContext): StepResult<S, O>;
  /**
   * The source completed. May emit trailing output, or throw (e.g. `RUN_TRUNCATED`, D-TRUNC).
   * `ctx.index` is the number of source events seen.
   */
  finish?(state: S, ctx: StepContext): StepResult<S, O>;
}

/** Shared empty array for results without output or warnings (avoids an allocation per event). */
export const NONE: readonly never[] = Object.freeze([]);

/** Builds a result; `out`/`warnings` default to the shared empty array. */
export function result<S, O>(
  state: S,
  out: readonly O[] = NONE,
  warnings: readonly ReasoningWarning[] = NONE,
): StepResult<S, O> {
  return { state, out, warnings };
}

/**
 * A reusable result for the commonest step of all, "this event passes on unchanged, no warning":
 * one per stage instance, it overwrites its `state` and its one-element `out` and returns itself,
 * so a pass-through step allocates nothing. Valid until the stage's next `step` (see `StepResult`).
 */
export function passThrough<S, O>(): (state: S, event: O) => StepResult<S, O> {
  const out: O[] = [];
  const reused: { state: S | undefined; out: readonly O[]; warnings: readonly ReasoningWarning[] } = {
    state: undefined,
    out,
    warnings: NONE,
  };
  return (state, event) => {
    reused.state = state;
    out[0] = event;
    return reused as StepResult<S, O>;
  };
}

/** Options every operator accepts. */
export interface WarningOptions {
  /**
   * Where warnings go (D-WARN). Default: `console.warn` of a one-line rendering, while nobody
   * subscribes to the facade's or middleware's `warnings$` (D-WARN-SINK). Use `() => {}`
   * together with `quiet` to silence non-lossy warnings; lossy warnings are still delivered to a
   * custom sink, and printed by the default sink even when `quiet` is set (R-VER-7).
   */
  readonly onWarning?: (warning: ReasoningWarning) => void;
  /** Suppress non-lossy warnings at the default sink. Lossy warnings are never suppressed. */
  readonly quiet?: boolean;
}
