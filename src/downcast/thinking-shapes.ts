import { LEGACY_THINKING, type LegacyShape } from "../upcast/legacy-thinking";

/**
 * `REASONING_*` type → the retired `THINKING_*` shape it downgrades to: the upcast mapping read
 * backwards (R-DEP-2), so the two directions cannot drift apart. `REASONING_ENCRYPTED_VALUE` and
 * `REASONING_MESSAGE_CHUNK` have no 0.x form ("No chunk form existed").
 */
export const THINKING_BY_REASONING: ReadonlyMap<string, LegacyShape> = new Map(
  [...LEGACY_THINKING.values()].map((shape) => [shape.target, shape]),
);
