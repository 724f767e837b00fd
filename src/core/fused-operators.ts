import { Observable, type OperatorFunction, type Subscriber } from "rxjs";
import { ChainRunner, isTruncation, type AnyStage, type ChainLink, type LaneArming } from "./chain-runner";
import { subscribeWithin } from "./subscribe-within";
import { NONE, type WarningOptions } from "./types";
import { warningSink } from "./warnings";

/** One operator of a fused chain: what its own subscriber would run. */
export interface FusedLink {
  /**
   * Per subscription: the stage to step and its state, what the operator emits before any input,
   * what it publishes after each source event (`ChainLink.publish`), and what it does when the chain
   * ends (`end`: before the subscriber completes or errors, `flush` true; on teardown, false).
   * `chain` is what the link may use of the chain once it runs (a paced publication, D-PACE).
   */
  open(chain: LinkChain): Pick<ChainLink, "stage" | "state" | "publish"> & {
    readonly start: readonly unknown[];
    readonly end?: (flush: boolean) => void;
  };
  readonly options: WarningOptions | undefined;
  /** Offered a whole chain ending with this link: its delta lane, if it knows one for that chain. */
  readonly planner?: LanePlanner;
}

/** What a link may use of its chain once the source runs. */
export interface LinkChain {
  /** The chain's runner (its states, `settle`, `busy`): read it only after the links opened. */
  readonly runner: () => ChainRunner;
  /** The link's position in the chain (its state is `runner().states[at]`). */
  readonly at: number;
  /** Emits `value` from this link downstream, outside the runner's own publications (D-PACE's trailing edge). */
  emit(value: unknown): void;
}

/** Recognizes a chain that has a delta lane (the composition root's, src/pipeline/operators.ts). */
export interface LanePlanner {
  /** For a chain of these links (asked once per subscription): how to arm its lane; undefined: it has none. */
  planFor(links: readonly FusedLink[]): LaneArming | undefined;
}

/**
 * What a package operator returns: its source (`origin`) and the operators applied so far. Another
 * package operator applied to it joins the chain, run in **one subscriber** on the chain runner as
 * the facade runs its stages; any other operator ends it. Each stays an ordinary `OperatorFunction`.
 *
 * It emits what the operators subscribed one inside the other would (the runner's order, start
 * values before the source is subscribed), with the facade's `eventIndex` (D-EVENT-INDEX) and
 * history emissions (D-PATHS). Why fused: piped, the operators cost 8–21× the RxJS floor with a
 * subscriber and a result object per operator per event (issue 13).
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
export function stageLink(stage: AnyStage, options: WarningOptions | undefined): FusedLink {
  return { open: () => ({ stage, state: stage.init(), start: NONE }), options };
}

function runFused(origin: Observable<unknown>, links: readonly FusedLink[], subscriber: Subscriber<unknown>): void {
  // eslint-disable-next-line prefer-const -- the links are opened before the runner exists
  let runner: ChainRunner;
  const opened = links.map((link, at) =>
    link.open({ runner: () => runner, at, emit: (value) => runner.inject(at + 1, value) }),
  );
  const chain: ChainLink[] = opened.map((o, i) => ({ ...o, warn: warningSink(links[i]!.options) }));
  const lane = links[links.length - 1]!.planner?.planFor(links);
  runner = new ChainRunner(chain, (value) => subscriber.next(value), lane ? { lane } : {});
  // Set when the chain ends (failed or completed): what a link publishes then (a flush) may make a
  // subscriber feed the source re-entrantly, and the chain takes nothing more.
  let ending = false;
  const end = (flush: boolean): void => {
    ending = true;
    for (const o of opened) o.end?.(flush);
  };
  const fail = (error: unknown): void => {
    end(true);
    runner.stop();
    subscriber.error(error);
  };
  subscriber.add(() => {
    runner.stop();
    end(false);
  });

  // Start values, last operator first: each operator emits them when subscribed, and an operator
  // subscribes its source only after that.
  try {
    for (let i = opened.length - 1; i >= 0 && !subscriber.closed; i--) {
      const start = opened[i]!.start;
      for (let s = 0; s < start.length && !subscriber.closed; s++) runner.inject(i + 1, start[s]);
    }
  } catch (error) {
    fail(error);
  }
  if (subscriber.closed) return;

  subscribeWithin(subscriber, origin, {
    next(value) {
      if (subscriber.closed || ending) return;
      try {
        runner.next(value);
      } catch (error) {
        fail(error);
      }
    },
    error(error) {
      if (ending) return;
      // An upstream truncation (a verifyDiscipline before a foreign operator): the source of this
      // chain ended, and its links finish as they would at the end of a truncated run (D-PATHS).
      if (isTruncation(error)) {
        try {
          runner.complete({ error });
        } catch (first) {
          fail(first);
        }
      } else fail(error);
    },
    complete() {
      if (ending) return;
      try {
        runner.complete();
      } catch (error) {
        fail(error);
        return;
      }
      end(true);
      subscriber.complete();
    },
  });
}
