import { NONE, type ReasoningWarning } from "../core/types";
import { FAMILIES, type Family } from "../discipline/families";
import type { RunPhase } from "../discipline/verify-state";
import type { LegacyItem } from "../upcast/legacy-thinking";

/** An item the repairer knows to be open, with what it takes to close it. */
export type OpenItem =
  | {
      readonly kind: "family";
      readonly family: Family;
      readonly id: string;
      readonly owner: string | undefined;
      readonly seq: number;
    }
  /** A legacy span or message: 0.x items have no id of their own (R-DEP-5). */
  | { readonly kind: "legacy"; readonly item: LegacyItem; readonly seq: number };

/**
 * The repairer's picture of the stream: the run phase and the explicit items open in the current
 * run, as the strict verifier will see them. Private and threaded linearly (a caller never reuses a
 * state it passed on), so it is updated in place and every step returns this same object.
 */
export class RepairState {
  phase: RunPhase = "none";
  /** `runId` of the current (or last) run, for messages. */
  runId: string | undefined = undefined;
  /** Per family (by `family.index`), id → open item, for families not tracked per owner. */
  readonly open: Map<string, OpenItem>[] = FAMILIES.map(() => new Map<string, OpenItem>());
  /** Per family, owner (`undefined` = parent) → id → open item, for per-owner families (steps). */
  readonly openByOwner: Map<string | undefined, Map<string, OpenItem>>[] = FAMILIES.map(
    () => new Map<string | undefined, Map<string, OpenItem>>(),
  );
  /** Subagent invocations that ended in this run: their ids cannot be announced again (R-SUB-5). */
  readonly endedSubagents = new Set<string>();
  /** The open legacy span and message, if any. */
  readonly legacy: Record<LegacyItem, OpenItem | undefined> = { span: undefined, message: undefined };
  /** Open items, all kinds together. */
  count = 0;
  /** Opening order: the next item's `seq` (closing goes in reverse, innermost first). */
  seq = 0;
  /**
   * The result of a step that forwards its one event unchanged (the hot path). Reused, so the
   * repairer allocates nothing per event; `out[0]` is overwritten by the next step.
   */
  readonly pass: {
    readonly state: RepairState;
    readonly out: unknown[];
    readonly warnings: readonly ReasoningWarning[];
  };

  constructor() {
    this.pass = { state: this, out: [], warnings: NONE };
  }

  /** The open item `id` of `family` (of `owner`, for per-owner families). */
  find(family: Family, id: string, owner: string | undefined): OpenItem | undefined {
    return family.perOwner ? this.openByOwner[family.index]!.get(owner)?.get(id) : this.open[family.index]!.get(id);
  }

  add(family: Family, id: string, owner: string | undefined): void {
    const item: OpenItem = { kind: "family", family, id, owner, seq: this.seq++ };
    if (!family.perOwner) this.open[family.index]!.set(id, item);
    else {
      const byOwner = this.openByOwner[family.index]!;
      let scope = byOwner.get(owner);
      if (scope === undefined) byOwner.set(owner, (scope = new Map<string, OpenItem>()));
      scope.set(id, item);
    }
    this.count++;
  }

  remove(family: Family, id: string, owner: string | undefined): void {
    const scope = family.perOwner ? this.openByOwner[family.index]!.get(owner) : this.open[family.index]!;
    if (scope?.delete(id)) this.count--;
  }

  setLegacy(item: LegacyItem, open: boolean): void {
    const was = this.legacy[item];
    const now: OpenItem | undefined = open ? { kind: "legacy", item, seq: this.seq++ } : undefined;
    this.legacy[item] = now;
    this.count += (now ? 1 : 0) - (was ? 1 : 0);
  }

  /** Every open item, most recently opened first (the order to close them in). */
  openItems(): OpenItem[] {
    const items: OpenItem[] = [];
    for (const scope of this.open) for (const item of scope.values()) items.push(item);
    for (const byOwner of this.openByOwner)
      for (const scope of byOwner.values()) for (const item of scope.values()) items.push(item);
    for (const item of Object.values(this.legacy)) if (item) items.push(item);
    return items.sort((a, b) => b.seq - a.seq);
  }

  /** A run ended or started: nothing is open any more (R-RUN-11). */
  forgetRun(): void {
    for (const scope of this.open) scope.clear();
    for (const byOwner of this.openByOwner) byOwner.clear();
    this.endedSubagents.clear();
    this.legacy.span = this.legacy.message = undefined;
    this.count = 0;
  }
}
