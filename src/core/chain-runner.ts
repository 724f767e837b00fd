import { isReasoningProtocolError } from "./errors";
import type { ShortenedLists } from "./source-pointer";
import type { ReasoningWarning, Stage, StepResult } from "./types";

// Stages of different state/input/output types run in one chain; the chain itself is untyped.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyStage = Stage<any, any, any>;

/** One link of a chain: a stage, its state, where its warnings go, and what it publishes after each source event. */
export interface ChainLink {
  readonly stage: AnyStage;
  readonly state: unknown;
  /** Receives this link's warnings, before the outputs of the same step (a warning precedes the event it concerns). */
  readonly warn: (warning: ReasoningWarning) => void;
  /**
   * After each source event (and after the end of the source): what the link emits from its state
   * then, e.g. `deriveHistory`'s new history — one per source event, as the facade publishes its own
   * (D-PATHS), not one per event the chain synthesized.
   */
  readonly publish?: (state: unknown) => readonly unknown[];
}

/**
 * A shortcut through the chain for the event that makes up nearly all of a stream (the delta lane):
 * for a source event no kept lane takes, the runner may arm one on the states as they are; while a
 * source event is one a kept lane's `deltaOf` accepts, `take` stands for exactly what the steps
 * would have done with it.
 */
export interface ChainLane {
  /** The delta when `event` is one the lane takes (its shape is checked here), else undefined. */
  deltaOf(event: unknown): string | undefined;
  /** Takes `event` (whose delta is `delta`): updates `states` in place as the steps would, and emits the chain's outputs. */
  take(states: unknown[], event: unknown, delta: string, emit: (value: unknown) => void): void;
  /** Whether `other` (armed for the same chain) streams the same item: two lanes of one item cannot both be kept. */
  sameItem(other: ChainLane): boolean;
  /**
   * A deferring lane (D-PACE, paced): `take` only extends the lane's own text, and `settle` writes
   * what it holds into `states`; `unsettled` tells whether it holds any. A lane without them updates
   * `states` in `take`.
   */
  readonly unsettled?: boolean;
  settle?(states: unknown[]): void;
}

/** The lane for `event` and the deltas like it that may follow, judged on the chain's states as they are now; or undefined. */
export type LaneArming = (states: readonly unknown[], event: unknown) => ChainLane | undefined;

/** What differs between the runner's users. */
export interface ChainPolicy {
  /** Index of the first source event (a resumed facade continues its count; D-EVENT-INDEX). Default 0. */
  readonly firstIndex?: number;
  /** The chain's delta lane, when it has one. */
  readonly lane?: LaneArming;
  /** After each source event and after the end of the source, once the links have published (the facade publishes its history here). */
  readonly afterEvent?: () => void;
}

/**
 * The lanes a chain keeps at most (items streaming interleaved); the oldest armed goes first. Every
 * source event is offered to each kept lane, so the set stays small.
 */
export const MAX_LANES = 8;

/** `error` is a RUN_TRUNCATED: the source it comes from ended while a run was open (D-TRUNC). */
export function isTruncation(error: unknown): boolean {
  return isReasoningProtocolError(error) && error.code === "RUN_TRUNCATED";
}

/**
 * The one loop that runs a chain of steps: the facade's five stages, a fused chain of the package's
 * operators, `stageOperator` and `runStage` all run on it.
 *
 * Depth-first: each output of link i passes through links i+1…n before the next output of link i,
 * which gives exactly the order (and the same partial output before an error) that one subscriber
 * per stage would give. `ctx.index` is the index of the source event in the chain's source for
 * every link, and synthesized events carry their trigger's (D-EVENT-INDEX); so does
 * `ctx.shortened`: the lists a link shortened in the event, for the links after it. A thrown error
 * propagates to the caller (`next`/`complete`); everything emitted before stays emitted.
 *
 * Re-entrancy: a subscriber may feed the source from inside an emission. The nested event runs
 * through the whole chain before the rest of the outer one (as with one subscriber per stage); the
 * lanes are taken and armed only at depth 0, where every state is whole, and `busy` holds until the
 * outermost event is done.
 *
 * The lanes: a source event no kept lane takes arms one on the states as they are, for itself and
 * the deltas of its item that follow; when it takes it, the lane is kept beside the others (items
 * streaming interleaved: a reasoning message and the answer, parallel tool calls; issue 23), up to
 * `MAX_LANES`. A lane-taken delta changes only its own item's text, so every kept lane stays valid;
 * an event that takes the steps may change anything, and drops them all.
 */
export class ChainRunner {
  /** Each link's state, threaded linearly (index = link position). */
  readonly states: unknown[];
  readonly #stages: readonly AnyStage[];
  readonly #sinks: readonly ((warning: ReasoningWarning) => void)[];
  // The links that publish after each source event, and their positions.
  readonly #publishers: readonly {
    readonly at: number;
    readonly publish: (state: unknown) => readonly unknown[];
  }[];
  // The one context every step sees: a fresh `{ index }` per event would be an allocation per event,
  // and no step keeps its ctx beyond the call.
  readonly #ctx: { index: number; shortened: ShortenedLists | undefined } = { index: 0, shortened: undefined };
  readonly #arm: LaneArming | undefined;
  readonly #afterEvent: (() => void) | undefined;
  readonly #emitOut: (value: unknown) => void;
  // Index of the next source event.
  #index: number;
  // Source events (or the end of the source) being handled right now.
  #depth = 0;
  // The kept lanes, oldest armed first; at most one per item (`sameItem`).
  readonly #lanes: ChainLane[] = [];
  #stopped = false;
  // Publishing what a failing event changed: a source event a subscriber feeds from inside that
  // publication is not taken — the failure is the stream's verdict, whenever the publication comes
  // (D-PACE's flushes come at other moments than unpaced publications). After it the runner goes on.
  #failing = false;

  constructor(links: readonly ChainLink[], emit: (value: unknown) => void, policy: ChainPolicy = {}) {
    this.#stages = links.map((l) => l.stage);
    this.states = links.map((l) => l.state);
    this.#sinks = links.map((l) => l.warn);
    const publishers: { at: number; publish: (state: unknown) => readonly unknown[] }[] = [];
    links.forEach((l, at) => l.publish && publishers.push({ at, publish: l.publish }));
    this.#publishers = publishers;
    this.#emitOut = emit;
    this.#arm = policy.lane;
    this.#afterEvent = policy.afterEvent;
    this.#index = policy.firstIndex ?? 0;
  }

  /** Inside a source event or the end of the source: the states are half-updated. */
  get busy(): boolean {
    return this.#depth > 0;
  }

  /** Source events handled so far (the index the next one gets). */
  get count(): number {
    return this.#index;
  }

  /**
   * The lanes hold text their item's state does not have yet (D-PACE: a paced chain's lanes defer it
   * to the next publication, `settle`).
   */
  get unsettled(): boolean {
    const lanes = this.#lanes;
    for (let l = 0; l < lanes.length; l++) if (lanes[l]!.unsettled === true) return true;
    return false;
  }

  /**
   * Writes the text the lanes hold into the states: before the steps run, a lane is armed or the
   * chain ends, and whenever the states are read whole (a publication, a snapshot). Safe at any
   * time: a lane holds only deltas it took completely.
   */
  settle(): void {
    const lanes = this.#lanes;
    for (let l = 0; l < lanes.length; l++) lanes[l]!.settle?.(this.states);
  }

  /** Stops the chain (its consumer left or it failed): the rest of the event in progress emits nothing more. */
  stop(): void {
    this.#stopped = true;
  }

  /** Feeds `value` into links `from`…n outside any source event (start values, emitted before the source starts). */
  inject(from: number, value: unknown): void {
    this.#feed(from, value);
  }

  /** One source event. Throws what a step threw. */
  next(value: unknown): void {
    if (this.#failing) return;
    if (this.#depth === 0 && this.#arm !== undefined && this.#tookLane(value)) return;
    this.#dropLanes();
    const ctx = this.#ctx;
    // A nested event must not leave its index to the rest of the outer one, nor see the outer's lists.
    const outer = ctx.index;
    const outerShortened = ctx.shortened;
    ctx.index = this.#index++;
    ctx.shortened = undefined;
    this.#depth++;
    try {
      this.#feed(0, value);
    } catch (error) {
      // What the failing event changed before the failure is published too: delivered stays delivered.
      this.#depth--;
      ctx.index = outer;
      ctx.shortened = outerShortened;
      this.#failing = true;
      try {
        this.#published();
      } finally {
        this.#failing = false;
      }
      throw error;
    }
    this.#depth--;
    ctx.index = outer;
    ctx.shortened = outerShortened;
    this.#published();
  }

  /**
   * The source ended (`upstream`: with that error, which is a truncation — `isTruncation`): every
   * link's `finish` runs in order and its output flows downstream. When one throws (e.g.
   * RUN_TRUNCATED) the later links still finish, so the history records the truncation on every
   * path (D-PATHS, D-TRUNC); then the links publish and the first error (the upstream's first) is thrown.
   */
  complete(upstream?: { readonly error: unknown }): void {
    this.#dropLanes();
    const stages = this.#stages;
    const states = this.states;
    const ctx = this.#ctx;
    ctx.index = this.#index;
    const outerShortened = ctx.shortened;
    ctx.shortened = undefined;
    let failure = upstream;
    this.#depth++;
    try {
      for (let i = 0; i < stages.length; i++) {
        const stage = stages[i]!;
        if (!stage.finish) continue;
        try {
          const r = stage.finish(states[i], ctx) as StepResult<unknown, unknown>;
          states[i] = r.state;
          this.#deliver(i, r.warnings);
          for (let o = 0; o < r.out.length && !this.#stopped; o++) this.#feed(i + 1, r.out[o]);
        } catch (error) {
          failure ??= { error };
        }
      }
    } finally {
      this.#depth--;
      ctx.shortened = outerShortened;
    }
    this.#published();
    if (failure !== undefined) throw failure.error;
  }

  /**
   * Whether a lane took `value`: a kept one, or one armed now on the states as they are (settled:
   * arming reads the item's text). A new lane is kept before it takes the delta: a re-entrant event
   * taking the steps during its emission settles and drops it with the others.
   */
  #tookLane(value: unknown): boolean {
    const lanes = this.#lanes;
    for (let l = 0; l < lanes.length; l++) {
      const delta = lanes[l]!.deltaOf(value);
      if (delta !== undefined) {
        this.#takeLane(lanes[l]!, value, delta);
        return true;
      }
    }
    this.settle();
    const lane = this.#arm!(this.states, value);
    const delta = lane?.deltaOf(value);
    if (delta === undefined) return false;
    // A lane keeps its item's text: two lanes of one item (another type or tag) cannot both stay.
    let same = 0;
    while (same < lanes.length && !lanes[same]!.sameItem(lane!)) same++;
    if (same < lanes.length) lanes.splice(same, 1);
    else if (lanes.length === MAX_LANES) lanes.shift();
    lanes.push(lane!);
    this.#takeLane(lane!, value, delta);
    return true;
  }

  /** Before the steps run or the chain ends: the lanes' text into the states, and no lane kept. */
  #dropLanes(): void {
    // Setting `length` is a runtime call: not on every event taking the steps, which mostly finds none.
    if (this.#lanes.length === 0) return;
    this.settle();
    this.#lanes.length = 0;
  }

  #takeLane(lane: ChainLane, value: unknown, delta: string): void {
    this.#index++;
    this.#depth++;
    try {
      lane.take(this.states, value, delta, this.#emitOut);
    } finally {
      this.#depth--;
    }
    this.#published();
  }

  /** After a source event: the links publish, then the policy's hook runs (outside the event: `busy` is false). */
  #published(): void {
    const publishers = this.#publishers;
    for (let p = 0; p < publishers.length && !this.#stopped; p++) {
      const { at, publish } = publishers[p]!;
      const values = publish(this.states[at]);
      for (let v = 0; v < values.length && !this.#stopped; v++) this.#feed(at + 1, values[v]);
    }
    this.#afterEvent?.();
  }

  /**
   * Runs `value` through links `from`…n. Nearly every step passes one event on and warns nothing, so
   * that case is a loop (`value = out[0]`, next link); only fan-out or a warning takes the general
   * path, which recurses once per output. A result is read completely before its stage steps again,
   * so stages may reuse one result object.
   */
  #feed(from: number, value: unknown): void {
    const stages = this.#stages;
    const states = this.states;
    const ctx = this.#ctx;
    for (let i = from; i < stages.length; i++) {
      const r = stages[i]!.step(states[i], value, ctx) as StepResult<unknown, unknown>;
      states[i] = r.state;
      const { warnings, out } = r;
      if (warnings.length === 0 && out.length === 1) {
        value = out[0];
        continue;
      }
      // The lists this step shortened, for the later links (a removal is always warned of, so the
      // loop above never meets one).
      const shortened = r.shortened;
      this.#deliver(i, warnings);
      const outer = ctx.shortened;
      if (shortened !== undefined) ctx.shortened = shortened;
      for (let o = 0; o < out.length && !this.#stopped; o++) this.#feed(i + 1, out[o]);
      ctx.shortened = outer;
      return;
    }
    this.#emitOut(value);
  }

  #deliver(i: number, warnings: readonly ReasoningWarning[]): void {
    const sink = this.#sinks[i]!;
    for (let w = 0; w < warnings.length; w++) sink(warnings[w]!);
  }
}
