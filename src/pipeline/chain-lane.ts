import type { ChainLane, FusedLink, LaneArming, LanePlanner } from "../core/fused-operators";
import type { AguiEvent } from "../core/types";
import type { ExpandState } from "../chunks/lanes";
import type { VerifyState } from "../discipline/verify-state";
import type { Conversation } from "../history/conversation";
import { maxContentLengthOf } from "../history/content-limit";
import { DeltaLane } from "./delta-lane";

/**
 * The delta lane (delta-lane.ts) for the package's operators piped one after another and fused
 * (fused-operators.ts): `upcastThinking(), enforceSchema(), expandChunks(), verifyDiscipline()`, then
 * `routeEncryptedValues()`, `deriveHistory()` or both, in that order. Each history operator keeps a
 * conversation of its own (the same one: they see the same events but for values naming no target,
 * which change no message), so a lane-shaped delta appends to each, exactly as their steps would; the
 * chain emits what its last operator would: the event (or the CONTENT/ARGS expansion synthesizes for
 * a chunk) after `routeEncryptedValues`, the new history after `deriveHistory`. Any other chain (another
 * order, an operator missing, any other operator fused in) has no lane and takes the steps.
 */
export const chainLane: LanePlanner = {
  planFor(links) {
    const histories = historyPositions(links);
    if (histories === undefined) return undefined;
    const last = links[links.length - 1]!;
    const derives = last.role === "derive";
    // A paced deriveHistory (D-PACE) emits states, and builds a history only when it publishes one.
    const emitsStates = derives && (last.options as { historyPace?: unknown } | undefined)?.historyPace !== undefined;
    // Each history operator's own bound (D-LIMIT); the operator validated it when it was created.
    const bounds = histories.map((at) =>
      maxContentLengthOf(
        (links[at]!.options as { maxContentLength?: unknown } | undefined)?.maxContentLength,
        "deriveHistory",
      ),
    );
    return armingFor(histories, bounds, derives, emitsStates);
  },
};

/** The positions of the history operators when the chain is upcast, enforce, expand, verify, then route and/or derive. */
function historyPositions(links: readonly FusedLink[]): readonly number[] | undefined {
  const roles = links.map((link) => link.role).join(",");
  switch (roles) {
    case "upcast,enforce,expand,verify,route":
    case "upcast,enforce,expand,verify,derive":
      return [4];
    case "upcast,enforce,expand,verify,route,derive":
      return [4, 5];
    default:
      return undefined;
  }
}

function armingFor(
  histories: readonly number[],
  bounds: readonly number[],
  derives: boolean,
  emitsStates: boolean,
): LaneArming {
  return (states, event) => {
    const expand = states[2] as ExpandState;
    const verify = states[3] as VerifyState;
    const lanes: DeltaLane[] = [];
    for (let i = 0; i < histories.length; i++) {
      const lane = DeltaLane.arm({ expand, verify, history: states[histories[i]!] as Conversation }, event, bounds[i]!);
      if (lane === undefined) return undefined;
      lanes.push(lane);
    }
    return new HistoryLanes(histories, lanes, derives, emitsStates);
  };
}

/**
 * One armed lane per history operator of the chain (they judge the same delta alike: same item, same
 * stream). The last history operator's conversation is updated delta by delta (its histories, or the
 * events after it, are what the chain emits); a history operator before it (`routeEncryptedValues`
 * followed by `deriveHistory`) emits only the events, so its conversation, which nothing reads while
 * the lane runs, gets the text once, when the lane ends (`settle`). While the chain keeps two lanes
 * (two items streaming in turns, fused-operators.ts), the lane armed beside another was armed on
 * states that lane had settled; each then keeps its own item's pending text (a lane-taken delta
 * changes nothing but its own item's text), and both settle when the steps are taken again or the
 * source ends.
 */
class HistoryLanes implements ChainLane {
  // The text of each earlier history operator's item, not yet in its conversation (undefined: none).
  private readonly pending: (string | undefined)[];

  constructor(
    private readonly positions: readonly number[],
    private readonly lanes: readonly DeltaLane[],
    private readonly derives: boolean,
    private readonly emitsStates: boolean,
  ) {
    this.pending = positions.map(() => undefined);
  }

  deltaOf(event: unknown): string | undefined {
    const { lanes } = this;
    const delta = lanes[0]!.deltaOf(event);
    // Every history operator's bound must hold (D-LIMIT): a delta past one takes the steps, which fail the run.
    for (let i = 1; i < lanes.length && delta !== undefined; i++) if (!lanes[i]!.fits(delta)) return undefined;
    return delta;
  }

  take(states: unknown[], event: unknown, delta: string, emit: (value: unknown) => void): void {
    const { positions, lanes, pending } = this;
    const last = lanes.length - 1;
    for (let i = 0; i < last; i++) pending[i] = lanes[i]!.extend(delta) ?? pending[i];
    const at = positions[last]!;
    const before = states[at] as Conversation;
    const after = lanes[last]!.append(before, delta);
    states[at] = after;
    if (!this.derives) emit(lanes[last]!.emitted(event as AguiEvent));
    else if (after !== before) emit(this.emitsStates ? after : after.history);
  }

  sameItem(other: ChainLane): boolean {
    // Every lane of this planner is a HistoryLanes of the same positions; their last lanes name the item.
    const last = this.lanes.length - 1;
    return this.lanes[last]!.sameItem((other as HistoryLanes).lanes[last]!);
  }

  settle(states: unknown[]): void {
    const { positions, lanes, pending } = this;
    for (let i = 0; i < pending.length; i++) {
      const text = pending[i];
      if (text === undefined) continue;
      states[positions[i]!] = lanes[i]!.withText(states[positions[i]!] as Conversation, text);
      pending[i] = undefined;
    }
  }
}
