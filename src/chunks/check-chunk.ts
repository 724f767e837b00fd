import type { AguiEvent, StepContext } from "../core/types";
import { isInstant, isPlainObject } from "../core/json";
import type { ChunkFamily } from "./chunk-families";
import { protocolError } from "../core/errors";

/**
 * Judges a chunk's described fields as the schema does before expanding it (R-STREAM-8, R-PROC-16):
 * the operator may run alone, and a synthesized event would conceal a bad value (`delta: 5`,
 * `metadata: null`, a float `timestamp` dropped). Nothing is coerced; the first bad field fails with
 * `MALFORMED_EVENT`. Undescribed fields are enforcement's business and are not carried over.
 */
export function checkChunk(family: ChunkFamily, chunk: AguiEvent, ctx: StepContext): void {
  const bad = firstBadField(family, chunk);
  if (bad !== undefined) {
    throw protocolError(
      "MALFORMED_EVENT",
      "R-PROC-16",
      chunk,
      ctx,
      [],
      `${bad} when present; a malformed chunk is rejected, never repaired.`,
    );
  }
}

/** What the first bad field must be (`/delta must be a string`), if any. */
function firstBadField(family: ChunkFamily, chunk: AguiEvent): string | undefined {
  if (!isOptionalString(chunk[family.idField])) return `/${family.idField} must be a string`;
  if (!isOptionalString(chunk.delta)) return "/delta must be a string";
  if (!isOptionalString(chunk.subagentRunId)) return "/subagentRunId must be a string";
  if (chunk.metadata !== undefined && !isPlainObject(chunk.metadata)) return "/metadata must be an object";
  if (chunk.rawEvent === null) return "/rawEvent must be a JSON value other than null";
  const timestamp = chunk.timestamp;
  if (timestamp !== undefined && !isInstant(timestamp)) return "/timestamp must be an integer within ±(2^53−1)";
  for (const field of family.openerFields) {
    const value = chunk[field.name];
    if (value === undefined) continue;
    if (typeof value !== "string") return `/${field.name} must be a string`;
    if (field.oneOf !== undefined && !field.oneOf.has(value)) {
      return `/${field.name} must be one of ${[...field.oneOf].join(", ")}`;
    }
  }
  return undefined;
}

const isOptionalString = (value: unknown): boolean => value === undefined || typeof value === "string";
