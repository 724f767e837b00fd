import type { ChainLane, FusedLink, LaneArming, LanePlanner } from "../core/fused-operators";
import type { AguiEvent } from "../core/types";
import type { ExpandState } from "../chunks/lanes";
import type { VerifyState } from "../discipline/verify-state";
import type { Conversation } from "../history/conversation";
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
    const derives = links[links.length - 1]!.role === "derive";
    return armingFor(histories, derives);
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

function armingFor(histories: readonly number[], derives: boolean): LaneArming {
  return (states, event) => {
    const expand = states[2] as ExpandState;
    const verify = states[3] as VerifyState;
    const lanes: DeltaLane[] = [];
    for (const at of histories) {
      const lane = DeltaLane.arm({ expand, verify, history: states[at] as Conversation }, event);
      if (lane === undefined) return undefined;
      lanes.push(lane);
    }
    return new HistoryLanes(histories, lanes, derives);
  };
}

/** One armed lane per history operator of the chain (they judge the same delta alike: same item, same stream). */
class HistoryLanes implements ChainLane {
  constructor(
    private readonly positions: readonly number[],
    private readonly lanes: readonly DeltaLane[],
    private readonly derives: boolean,
  ) {}

  take(states: unknown[], event: unknown, emit: (value: unknown) => void): boolean {
    const first = this.lanes[0]!;
    const delta = first.deltaOf(event);
    if (delta === undefined) return false;
    const { positions, lanes } = this;
    let last: Conversation | undefined;
    let changed = false;
    for (let i = 0; i < lanes.length; i++) {
      const at = positions[i]!;
      const before = states[at] as Conversation;
      last = lanes[i]!.append(before, delta);
      changed = last !== before;
      states[at] = last;
    }
    if (!this.derives) emit(first.emitted(event as AguiEvent));
    else if (changed) emit(last!.history);
    return true;
  }
}
