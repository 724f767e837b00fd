import type { AguiEvent } from "../core/types";
import { passThrough } from "../core/types";
import type { KnownRoles } from "./known-roles";
import { createOpenSets, type OpenSets } from "./open-items";

/**
 * Where the stream is in the run lifecycle (lifecycle page, state diagram): `none` before the
 * first event, `active` inside a run, `finished` after RUN_FINISHED, `errored` after RUN_ERROR.
 */
export type RunPhase = "none" | "active" | "finished" | "errored";

/**
 * The verifier's private state. It is threaded linearly through `step` (a caller never reuses a
 * state it passed on), so it is updated in place and every step returns this same object.
 */
export class VerifyState {
  phase: RunPhase = "none";
  /** `runId` of the current (or last) run, for error details and D-RUN-ID. */
  runId: string | undefined = undefined;
  /** `threadId` of the current (or last) run's RUN_STARTED (D-RUN-ID). */
  threadId: string | undefined = undefined;
  /** Per-family open sets of the current run. */
  readonly sets: OpenSets = createOpenSets();
  /**
   * The result every step returns: the verifier only ever forwards the one event it was given, so
   * one reused result (core `passThrough`) keeps the hot path free of allocations.
   */
  readonly pass = passThrough<VerifyState, AguiEvent>();

  /** @param roles roles of every message known so far, across runs (D-ROLE-CONFLICT). */
  constructor(readonly roles: KnownRoles) {}
}
