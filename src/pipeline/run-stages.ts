import type { AnyStage } from "../core/fused-operators";
import type { ReasoningWarning } from "../core/types";

/** Receives what a chain of stages produces: final outputs, warnings, and each stage's new state. */
export interface ChainSink {
  /** An output of the last stage. */
  emit(value: unknown): void;
  warn(warning: ReasoningWarning): void;
}

/**
 * Runs several stages as one, in one subscriber (the facade's fused core).
 *
 * Depth-first: each output of stage i goes through stages i+1…n before the next output of stage i,
 * which gives exactly the order (and the same partial output before an error) that chaining the
 * stages' operators would give. A thrown `ReasoningProtocolError` propagates to the caller; everything
 * already emitted stays emitted.
 */
export class StageChain {
  /** Each stage's state, threaded linearly (index = stage position). */
  readonly states: unknown[];

  constructor(
    readonly stages: readonly AnyStage[],
    private readonly sink: ChainSink,
  ) {
    this.states = stages.map((s): unknown => s.init());
  }

  // The one context every step of this chain sees, updated per source event: a fresh `{ index }`
  // per event would be an allocation per event, and no step keeps its ctx beyond the call.
  private readonly ctx: { index: number } = { index: 0 };

  /** Feeds one source event (index = its position in the source). */
  push(event: unknown, index: number): void {
    const ctx = this.ctx;
    // A subscriber may push the next source event from inside this one (a re-entrant source): the
    // rest of this event's outputs must still be attributed to this event's index.
    const outer = ctx.index;
    ctx.index = index;
    try {
      this.feed(0, event);
    } finally {
      ctx.index = outer;
    }
  }

  /**
   * The source completed: every stage's `finish` runs in order and its output flows downstream.
   * When one throws (e.g. RUN_TRUNCATED) the later stages still finish, so the history can record
   * the truncation, and then the first error is rethrown.
   */
  finish(index: number): void {
    const ctx = this.ctx;
    ctx.index = index;
    let failure: { error: unknown } | undefined;
    for (let i = 0; i < this.stages.length; i++) {
      const stage = this.stages[i]!;
      if (!stage.finish) continue;
      try {
        const r = stage.finish(this.states[i], ctx);
        this.states[i] = r.state;
        for (const w of r.warnings) this.sink.warn(w);
        if (failure === undefined) for (const o of r.out) this.feed(i + 1, o);
      } catch (error) {
        failure ??= { error };
      }
    }
    if (failure) throw failure.error;
  }

  /**
   * Runs `event` through stages `from`…n. Nearly every step passes one event on and warns nothing,
   * so that case is a loop (`event = out[0]`, next stage); only fan-out (chunk expansion, closing
   * events) or a warning takes the general path, which recurses once per output. A result is read
   * completely before its stage steps again, so stages may reuse one result object.
   */
  private feed(from: number, event: unknown): void {
    const { stages, states, ctx } = this;
    for (let i = from; i < stages.length; i++) {
      const r = stages[i]!.step(states[i], event, ctx);
      states[i] = r.state;
      const { warnings, out } = r;
      if (warnings.length === 0 && out.length === 1) {
        event = out[0];
        continue;
      }
      for (let w = 0; w < warnings.length; w++) this.sink.warn(warnings[w]!);
      for (let o = 0; o < out.length; o++) this.feed(i + 1, out[o]);
      return;
    }
    this.sink.emit(event);
  }
}
