import { EventType } from "@ag-ui/core";
import { FAMILY_BY_CHUNK_TYPE } from "../chunks/chunk-families";
import { FAMILIES, ROUTES, type Family } from "../discipline/families";
import { LEGACY_THINKING, type LegacyShape } from "../upcast/legacy-thinking";

/**
 * What an event type means to the repairer. Built from the tables the strict stages use (the
 * verifier's families, the chunk families, the legacy mapping), so repair judges "open" and
 * "closed" exactly as they do. Types missing from `REPAIR_ROUTES` are not 1.0 types: enforcement
 * drops them, so repair passes them untouched.
 */
export type RepairRoute =
  /** An item's START / CONTENT / END (spans, reasoning and text messages, tool calls, steps, subagents). */
  | { readonly kind: "open" | "continue" | "close"; readonly family: Family }
  /** A `*_CHUNK`: it opens (or continues) an item of `family`, named by `idField`. */
  | { readonly kind: "chunk"; readonly family: Family; readonly idField: "messageId" | "toolCallId" }
  /** A retired `THINKING_*` event (translated downstream by upcastThinking). */
  | { readonly kind: "legacy"; readonly shape: LegacyShape }
  | { readonly kind: "run-started" | "run-finished" | "run-error" }
  /** Any other 1.0 event: standalone, it only needs an open run (R-STREAM-6). */
  | { readonly kind: "in-run" };

function buildRoutes(): ReadonlyMap<string, RepairRoute> {
  const routes = new Map<string, RepairRoute>();
  for (const type of Object.values(EventType)) routes.set(type, { kind: "in-run" });
  for (const [type, route] of ROUTES) {
    if (route.kind === "open" || route.kind === "continue" || route.kind === "close") routes.set(type, route);
    else if (route.kind === "run-started" || route.kind === "run-finished" || route.kind === "run-error")
      routes.set(type, { kind: route.kind });
  }
  for (const [type, chunkFamily] of FAMILY_BY_CHUNK_TYPE) {
    // The family a chunk's synthesized START opens in the verifier.
    const family = FAMILIES.find((f) => f.open === chunkFamily.startType)!;
    routes.set(type, { kind: "chunk", family, idField: chunkFamily.idField });
  }
  for (const [type, shape] of LEGACY_THINKING) routes.set(type, { kind: "legacy", shape });
  return routes;
}

/** Event type → route, built once. */
export const REPAIR_ROUTES: ReadonlyMap<string, RepairRoute> = buildRoutes();
