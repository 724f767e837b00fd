import type { OperatorFunction } from "rxjs";
import { fusedOperator, stageLink, type FusedLink, type LanePlanner, type LinkChain } from "../core/fused-operators";
import { NONE, type AguiEvent, type Stage, type StepResult, type WarningOptions } from "../core/types";
import { createUpcastStage, type UpcastOptions } from "../upcast/upcast-thinking";
import { createEnforceStage } from "../schema/enforce-schema";
import { createExpandStage } from "../chunks/expand-chunks";
import { createVerifyStage, type VerifyOptions } from "../discipline/verify-discipline";
import { createHistoryStage, type HistoryOptions, type HistoryState } from "../history/history-stage";
import { maxContentLengthOf } from "../history/content-limit";
import type { ReasoningHistory } from "../history/types";
import { historyLane } from "./delta-lane";
import { PacedHistory } from "./paced-history";
import { endsRun, pacingOf } from "./paced-publisher";
import { optionsOf } from "../core/arguments";

/**
 * The composition root of the package's operators: each is its stage on the chain runner
 * (fused-operators.ts), and a chain of them in the facade's order — upcast, enforce, expand,
 * verify, then deriveHistory — takes the facade's delta lane (delta-lane.ts). The chain is
 * recognized by its links, which only this module makes.
 */

/** The stage factory each link of this module was made by, in the facade's order. */
const FACADE_ORDER = [createUpcastStage, createEnforceStage, createExpandStage, createVerifyStage, createHistoryStage];
const madeBy = new WeakMap<FusedLink, unknown>();

function own(link: FusedLink, factory: unknown): FusedLink {
  madeBy.set(link, factory);
  return link;
}

/** The links are this module's, in the facade's order. */
function inFacadeOrder(links: readonly FusedLink[]): boolean {
  return links.length === FACADE_ORDER.length && links.every((link, i) => madeBy.get(link) === FACADE_ORDER[i]);
}

/** THINKING_* → REASONING_* (R-DEP-2). See `createUpcastStage`. Must be the first operator (R-PROC-13). */
export function upcastThinking(options?: UpcastOptions): OperatorFunction<unknown, AguiEvent> {
  options = optionsOf(options, "upcastThinking");
  return fusedOperator(own(stageLink(createUpcastStage(options), options), createUpcastStage));
}

/** The enforcement stage as an RxJS operator: `unknown` in (anything may arrive), validated events out. */
export function enforceSchema(options?: WarningOptions): OperatorFunction<unknown, AguiEvent> {
  options = optionsOf(options, "enforceSchema");
  return fusedOperator(own(stageLink(createEnforceStage(options), options), createEnforceStage));
}

/** `*_CHUNK` → START/CONTENT/END, lanes and close triggers (R-STREAM-*). See `createExpandStage`. */
export function expandChunks(options?: WarningOptions): OperatorFunction<AguiEvent, AguiEvent> {
  options = optionsOf(options, "expandChunks");
  return fusedOperator(own(stageLink(createExpandStage(options), options), createExpandStage));
}

/** Run lifecycle and open-set discipline (R-REASON-8…14, R-RUN-*). See `createVerifyStage`. */
export function verifyDiscipline(options?: VerifyOptions): OperatorFunction<AguiEvent, AguiEvent> {
  options = optionsOf(options, "verifyDiscipline");
  return fusedOperator(own(stageLink(createVerifyStage(options), options), createVerifyStage));
}

/**
 * The history stage's states: the initial history on subscribe, then the new history after each
 * source event that changed it (one per source event, as the facade's `history$`, D-PATHS),
 * including the one the end of the source leaves when it marks truncation; completes with the source.
 */
export function deriveHistory(options?: HistoryOptions): OperatorFunction<AguiEvent, ReasoningHistory> {
  options = optionsOf(options, "deriveHistory");
  const stage = createHistoryStage(options);
  const pacing = pacingOf(options, "deriveHistory");
  const lane = historyLane(maxContentLengthOf(options?.maxContentLength, "deriveHistory"), false, pacing !== undefined);
  const planner: LanePlanner = { planFor: (links) => (inFacadeOrder(links) ? lane : undefined) };
  const link: FusedLink = {
    open: (chain) => {
      const state = stage.init();
      if (pacing !== undefined) return pacedLink(stage, state, chain, pacing);
      let published = state.history;
      return {
        stage: withoutOutput(stage),
        state,
        start: [published],
        publish: (after) => {
          const history = (after as HistoryState).history;
          if (history === published) return NONE;
          published = history;
          return [history];
        },
      };
    },
    options,
    planner,
  };
  return fusedOperator(own(link, createHistoryStage));
}

/**
 * The paced deriveHistory's link (D-PACE): after each source event the cadence hears of a change,
 * the pending history is published after an event that ends a run and before the chain ends.
 */
function pacedLink(
  stage: Stage<HistoryState, AguiEvent, AguiEvent>,
  state: HistoryState,
  chain: LinkChain,
  pacing: NonNullable<ReturnType<typeof pacingOf>>,
): ReturnType<FusedLink["open"]> {
  let published = state.history;
  const paced = new PacedHistory(chain.runner, chain.at, state, pacing, (s) => {
    const history = s.history;
    if (history === published) return false;
    published = history;
    chain.emit(history);
    return true;
  });
  let endedRun = false;
  const silent = withoutOutput(stage);
  return {
    stage: {
      ...silent,
      step: (s: HistoryState, event: AguiEvent, ctx: { index: number }) => {
        const r = silent.step(s, event, ctx);
        if (endsRun(event)) endedRun = true;
        return r;
      },
    },
    state,
    start: [state.history],
    publish: () => {
      if (endedRun) {
        endedRun = false;
        paced.flush();
      } else paced.changed();
      return NONE;
    },
    end: (flush) => (flush ? paced.close() : paced.dispose()),
  };
}

/** `stage` emitting nothing per event: what deriveHistory emits is published after each source event. */
function withoutOutput<S>(stage: Stage<S, AguiEvent, AguiEvent>): Stage<S, AguiEvent, never> {
  // One reused result: valid until the next step, as every result (types.ts).
  const reused: { state: S | undefined; out: readonly never[]; warnings: StepResult<S, never>["warnings"] } = {
    state: undefined,
    out: NONE,
    warnings: NONE,
  };
  const silent = (r: StepResult<S, AguiEvent>): StepResult<S, never> => {
    reused.state = r.state;
    reused.warnings = r.warnings;
    return reused as StepResult<S, never>;
  };
  // eslint-disable-next-line @typescript-eslint/unbound-method -- called below with `stage` as `this`
  const finish = stage.finish;
  return {
    name: stage.name,
    init: () => stage.init(),
    step: (state, event, ctx) => silent(stage.step(state, event, ctx)),
    ...(finish && { finish: (state: S, ctx: { index: number }) => silent(finish.call(stage, state, ctx)) }),
  };
}
