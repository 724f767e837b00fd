import { quotedId } from "../core/errors";
import { FAMILIES, type Family } from "../discipline/families";
import type { KnownRoles } from "../discipline/known-roles";
import { runItems, scopeOf, type Item } from "../discipline/open-items";
import { VerifyState, type RunPhase } from "../discipline/verify-state";
import { JsonShape } from "../storage/json-shape";

/** One item of the current run in JSON: open, or closed and remembered (reopen checks, R-TEXT-5/6, R-SUB-5). */
export interface RunItemJSON {
  /** The family, by its opening event type: `REASONING_START`, `REASONING_MESSAGE_START`, `STEP_STARTED`, … */
  readonly family: string;
  readonly id: string;
  /** The opener's `subagentRunId`; `null` for the parent agent. */
  readonly owner: string | null;
  readonly open: boolean;
}

/** `VerifyState` in JSON: the run phase, the current run's items, and every message role known so far. */
export interface VerifyStateJSON {
  readonly phase: RunPhase;
  readonly runId: string | null;
  /** The open (or last) run's `threadId` (D-RUN-ID); absent in states exported before it was kept. */
  readonly threadId?: string | null;
  /** Family by family in table order, each in the order its items were first opened. */
  readonly items: readonly RunItemJSON[];
  /** Message id → role, across runs (D-ROLE-CONFLICT), in the order they became known. */
  readonly roles: readonly (readonly [string, string])[];
}

const PHASES: readonly RunPhase[] = ["none", "active", "finished", "errored"];
const FAMILY_BY_OPEN: ReadonlyMap<string, Family> = new Map(FAMILIES.map((f) => [f.open, f]));

export function verifyStateToJSON(state: VerifyState): VerifyStateJSON {
  return {
    phase: state.phase,
    runId: state.runId ?? null,
    threadId: state.threadId ?? null,
    items: [...runItems(state.sets)].map(({ family, id, item }) => ({
      family: family.open,
      id,
      owner: item.owner ?? null,
      open: item.open,
    })),
    roles: [...state.roles],
  };
}

/** Reads (and checks) what `verifyStateToJSON` wrote; a bad part is a `TypeError` naming its JSON pointer. */
export function verifyStateFromJSON(json: unknown, shape = new JsonShape("verifyStateFromJSON")): VerifyState {
  const doc = shape.object(json, "");
  const roles: KnownRoles = new Map();
  shape.array(doc.roles, "/roles").forEach((entry, i) => {
    const pair = shape.array(entry, `/roles/${i}`);
    if (pair.length !== 2) shape.fail(`/roles/${i}`, `must be an [id, role] pair (got ${pair.length} elements)`);
    roles.set(shape.string(pair[0], `/roles/${i}/0`), shape.string(pair[1], `/roles/${i}/1`));
  });
  const state = new VerifyState(roles);
  state.phase = shape.oneOf(doc.phase, PHASES, "/phase");
  state.runId = shape.stringOrNull(doc.runId, "/runId");
  state.threadId =
    doc.threadId === undefined ? undefined : (shape.stringOrNull(doc.threadId, "/threadId") ?? undefined);
  const items = shape.array(doc.items, "/items");
  // Outside a run nothing is tracked: RUN_FINISHED and RUN_ERROR empty the sets (R-RUN-11).
  if (state.phase !== "active" && items.length > 0)
    shape.fail("/items", `must be empty in phase "${state.phase}" (items are tracked inside a run only)`);
  items.forEach((entry, i) => addItem(state, entry, shape.at(`/items/${i}`)));
  return state;
}

function addItem(state: VerifyState, entry: unknown, shape: JsonShape): void {
  const doc = shape.object(entry, "");
  const family = FAMILY_BY_OPEN.get(shape.string(doc.family, "/family"));
  if (family === undefined) return shape.fail("/family", `must be one of ${[...FAMILY_BY_OPEN.keys()].join(" | ")}`);
  const id = shape.string(doc.id, "/id");
  const item: Item = { owner: shape.stringOrNull(doc.owner, "/owner"), open: shape.boolean(doc.open, "/open") };
  const scope = scopeOf(state.sets, family, item.owner);
  if (scope.has(id)) shape.fail("/id", `repeats the ${family.noun} ${quotedId(id)}`);
  scope.set(id, item);
  if (item.open) {
    state.sets.families[family.index]!.open++;
    state.sets.total++;
  }
}
