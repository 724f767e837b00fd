import { truncateId } from "../core/errors";

/**
 * JSON pointers (RFC 6901) for warnings and errors: `/messages/0/encryptedValueType`.
 * Keys come from untrusted input, so each segment is escaped and long ones are truncated
 * (a path names where something was, never what it contained — D-REDACT).
 */
export function toPointer(segments: readonly (string | number)[], length = segments.length): string {
  let pointer = "";
  for (let i = 0; i < length; i++) pointer += `/${escapeSegment(segments[i] as string | number)}`;
  return pointer;
}

function escapeSegment(segment: string | number): string {
  if (typeof segment === "number") return String(segment);
  return truncateId(segment).replace(/~/g, "~0").replace(/\//g, "~1");
}
