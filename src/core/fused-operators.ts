import { Observable, type OperatorFunction, type Subscriber } from "rxjs";
import { subscribeWithin } from "./subscribe-within";
import { NONE, type ReasoningWarning, type Stage, type StepResult, type WarningOptions } from "./types";
import { warningSink } from "./warnings";

// Stages of different state/input/output types run in one chain; the chain itself is untyped.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyStage = Stage<any, any, any>;

/**
 * What each package operator is, for a lane planner that recognizes a chain of them (the facade's
 * delta lane, `src/pipeline/chain-lane.ts`). Operators built by `stageOperator` alone have no role.
 */
export type OperatorRole = "upcast" | "enforce" | "expand" | "verify" | "route" | "derive";

/** One operator of a fused chain: what its own subscriber would run. */
export interface FusedLink {
  /** Per subscription: the stage to step, its state, and what the operator emits before any input. */
  open(): { readonly stage: AnyStage; readonly state: unknown; readonly start: readonly unknown[] };
  readonly options: WarningOptions | undefined;
  readonly role?: OperatorRole;
  /** Offered a whole chain ending with this link: a shortcut for the events it can take without the steps. */
  readonly planner?: LanePlanner;
}

/**
 * A shortcut through a fused chain for the event that makes up nearly all of a stream (the delta
 * lane): after the steps handled a source event, `arm` may return a lane; while the next source event
 * is one `take` accepts, it stands for exactly what the steps would have done with it.
 */
export interface LanePlanner {
  /** For a chain of these links (asked once per subscription): how to arm its lane; undefined: it has none. */
  planFor(links: readonly FusedLink[]): LaneArming | undefined;
}

/**
 * The lane for events like `event` that may follow, judged on the states as they are now: after the
 * steps handled `event`, or, while another item's lane is armed, before `event` (a delta of another
 * item) is taken, on states every lane has settled.
 */
export type LaneArming = (states: readonly unknown[], event: unknown) => ChainLane | undefined;

export interface ChainLane {
  /** The delta when `event` is one the lane takes (its shape is checked here), else undefined. */
  deltaOf(event: unknown): string | undefined;
  /**
   * Takes `event` (whose delta is `delta`): updates `states` in place — every state the chain's
   * outputs depend on as the steps would leave it — and calls `emit` with the chain's outputs.
   */
  take(states: unknown[], event: unknown, delta: string, emit: (value: unknown) => void): void;
  /**
   * The lane ends (another event comes, or the source ends), or another lane is armed beside it:
   * every state is made what the steps would have made it. The lane stays usable (settling again
   * after more deltas settles those).
   */
  settle(states: unknown[]): void;
  /** Whether `other` (armed by the same planner) streams the same item: two lanes of one item cannot both be kept. */
  sameItem(other: ChainLane): boolean;
}

/**
 * The observable a package operator returns: its source (`origin`) and the operators applied to it
 * so far. Applying another package operator to it makes one observable of them all, run in **one
 * subscriber** (`runFused`), as the facade runs its stages; applying any other operator gives an
 * ordinary observable, and the next package operator starts a new chain on it. Either way each
 * operator stays an ordinary `OperatorFunction`.
 *
 * The fused chain emits exactly what the operators subscribed one inside the other would: the same
 * values in the same order, each operator's warnings to its own sink before its outputs of the same
 * step, `ctx.index` per operator counting that operator's inputs, the same partial output before an
 * error, `finish` operator by operator on completion, start values (deriveHistory's initial history)
 * before the source is subscribed. Why: the six operators piped cost 8–21× the RxJS floor with a
 * subscriber and a result object per operator per event (issue 13); fused they cost what the facade
 * costs (docs/performance.md).
 */
// eslint-disable-next-line rxjs-x/no-subclass -- the next package operator must recognize a fused chain to join it (instanceof)
export class FusedObservable<T> extends Observable<T> {
  constructor(
    readonly origin: Observable<unknown>,
    readonly links: readonly FusedLink[],
  ) {
    super((subscriber) => runFused(origin, links, subscriber));
  }
}

/** The operator of one link: joins the chain its source already is, or starts one. */
export function fusedOperator<I, O>(link: FusedLink): OperatorFunction<I, O> {
  return (source) =>
    source instanceof FusedObservable
      ? new FusedObservable<O>(source.origin, [...source.links, link])
      : new FusedObservable<O>(source, [link]);
}

/** The link of a plain stage: what `stageOperator` runs. */
export function stageLink(stage: AnyStage, options: WarningOptions | undefined, role?: OperatorRole): FusedLink {
  return { open: () => ({ stage, state: stage.init(), start: NONE }), options, ...(role && { role }) };
}

function runFused(origin: Observable<unknown>, links: readonly FusedLink[], subscriber: Subscriber<unknown>): void {
  const count = links.length;
  const sinks = links.map((link) => warningSink(link.options));
  const opened = links.map((link) => link.open());
  const stages = opened.map((o) => o.stage);
  const states = opened.map((o) => o.state);
  // Each operator counts its own inputs (`ctx.index`), as its own subscriber would; one reused ctx
  // per operator, set before each step (no step keeps its ctx).
  const inputs = new Array<number>(count).fill(0);
  const contexts = links.map(() => ({ index: 0 }));
  const arm = links[count - 1]!.planner?.planFor(links);
  let lane: ChainLane | undefined;
  // The lane taken before `lane`, while only lanes were taken since (two items streaming in turns, as
  // the facade keeps them, issue 13): a lane-taken delta changes only its own item's text, so it
  // stays valid; its own unsettled text stays with it until both are settled.
  let spare: ChainLane | undefined;
  // Source events being handled (more than one when a consumer feeds the source re-entrantly): the
  // lane is taken and armed only at depth 0, where every state is whole.
  let depth = 0;
  const emit = (value: unknown): void => subscriber.next(value);

  // A delta `taken` accepts: what the steps would do with it (`delta` is its delta).
  const takeLane = (taken: ChainLane, value: unknown, delta: string): void => {
    // Each operator takes the delta as one input (and a chunk's expansion gives one CONTENT/ARGS).
    for (let i = 0; i < count; i++) inputs[i]!++;
    depth++;
    try {
      taken.take(states, value, delta, emit);
    } finally {
      depth--;
    }
  };

  /** Runs `value` through operators `from`…last; false when the chain failed or was closed. */
  const feed = (from: number, value: unknown): boolean => {
    for (let i = from; i < count; i++) {
      const ctx = contexts[i]!;
      ctx.index = inputs[i]!++;
      let r: StepResult<unknown, unknown>;
      try {
        r = stages[i]!.step(states[i], value, ctx);
      } catch (error) {
        subscriber.error(error);
        return false;
      }
      states[i] = r.state;
      const { warnings, out } = r;
      if (warnings.length === 0 && out.length === 1) {
        value = out[0];
        continue;
      }
      deliver(i, warnings);
      for (let o = 0; o < out.length; o++) {
        if (!feed(i + 1, out[o]) || subscriber.closed) return false;
      }
      return true;
    }
    subscriber.next(value);
    return !subscriber.closed;
  };

  const deliver = (i: number, warnings: readonly ReasoningWarning[]): void => {
    const sink = sinks[i]!;
    for (let w = 0; w < warnings.length; w++) sink(warnings[w]!);
  };

  // Start values, last operator first: each operator emits them when subscribed, and an operator
  // subscribes its source only after that.
  for (let i = count - 1; i >= 0; i--) {
    const start = opened[i]!.start;
    for (let s = 0; s < start.length; s++) if (!feed(i + 1, start[s])) return;
  }

  subscribeWithin(subscriber, origin, {
    next(value) {
      if (subscriber.closed) return;
      if (lane !== undefined) {
        if (depth === 0) {
          const delta = lane.deltaOf(value);
          if (delta !== undefined) {
            takeLane(lane, value, delta);
            return;
          }
          // Another item's delta: the spare's lane, or one armed now on the states as the steps would
          // leave them (the current lane settled first). Both lanes are set before the delta is
          // taken: a re-entrant event taking the steps during its emission settles and clears them.
          let other = spare;
          if (other === undefined && arm !== undefined) {
            lane.settle(states);
            other = arm(states, value);
          }
          const otherDelta = other?.deltaOf(value);
          if (otherDelta !== undefined) {
            // A lane keeps its item's text: two lanes of one item (another type or tag) cannot both stay.
            spare = lane.sameItem(other!) ? undefined : lane;
            lane = other!;
            takeLane(lane, value, otherDelta);
            return;
          }
        }
        // Also when a consumer feeds the source from inside a lane delta's emission: the steps need whole states.
        lane.settle(states);
        spare?.settle(states);
        lane = undefined;
        spare = undefined;
      }
      depth++;
      const ok = feed(0, value);
      depth--;
      if (ok && depth === 0 && arm !== undefined) lane = arm(states, value);
    },
    error(error) {
      subscriber.error(error);
    },
    complete() {
      lane?.settle(states);
      spare?.settle(states);
      lane = undefined;
      spare = undefined;
      for (let i = 0; i < count; i++) {
        const stage = stages[i]!;
        if (!stage.finish) continue;
        let r: StepResult<unknown, unknown>;
        try {
          r = stage.finish(states[i], { index: inputs[i]! });
        } catch (error) {
          subscriber.error(error);
          return;
        }
        states[i] = r.state;
        deliver(i, r.warnings);
        for (let o = 0; o < r.out.length; o++) if (!feed(i + 1, r.out[o])) return;
      }
      subscriber.complete();
    },
  });
}
