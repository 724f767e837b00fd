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
      `${bad.path} must be ${bad.expected} when present; a malformed chunk is rejected, never repaired.`,
    );
  }
}

interface BadField {
  readonly path: string;
  readonly expected: string;
}

function firstBadField(family: ChunkFamily, chunk: AguiEvent): BadField | undefined {
  if (!isOptionalString(chunk[family.idField])) return { path: `/${family.idField}`, expected: "a string" };
  if (!isOptionalString(chunk.delta)) return { path: "/delta", expected: "a string" };
  if (!isOptionalString(chunk.subagentRunId)) return { path: "/subagentRunId", expected: "a string" };
  if (chunk.metadata !== undefined && !isPlainObject(chunk.metadata))
    return { path: "/metadata", expected: "an object" };
  if (chunk.rawEvent === null) return { path: "/rawEvent", expected: "a JSON value other than null" };
  const timestamp = chunk.timestamp;
  if (timestamp !== undefined && !isInstant(timestamp)) {
    return { path: "/timestamp", expected: "an integer within ±(2^53−1)" };
  }
  for (const field of family.openerFields) {
    const value = chunk[field.name];
    if (value === undefined) continue;
    if (typeof value !== "string") return { path: `/${field.name}`, expected: "a string" };
    if (field.oneOf !== undefined && !field.oneOf.has(value)) {
      return { path: `/${field.name}`, expected: `one of ${[...field.oneOf].join(", ")}` };
    }
  }
  return undefined;
}

const isOptionalString = (value: unknown): boolean => value === undefined || typeof value === "string";
