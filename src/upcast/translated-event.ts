import type { AguiEvent } from "../core/types";
import { setOwn } from "../core/json";

type Obj = Record<string, unknown>;

/**
 * The translated event: `fields` (its type, id, …), then every other own enumerable field of the
 * legacy `event` copied as it is, except `omit`. Same result as `{ ...event, ...fields }` without
 * `omit`, but V8 runs a spread followed by more properties on a slow path (≈2 µs per event); this
 * loop is ≈30× faster. A `__proto__` key is data (JSON.parse makes it an own property): `setOwn` defines
 * it, so it cannot change the copy's prototype.
 */
export function translatedEvent(event: Obj, fields: { type: string } & Obj, omit?: string): AguiEvent {
  const keys = Object.keys(event);
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    if (key === omit || Object.hasOwn(fields, key)) continue;
    setOwn(fields, key, event[key]);
  }
  return fields;
}
