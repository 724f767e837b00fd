import { truncateId } from "../core/errors";

/**
 * JSON pointers (RFC 6901) for warnings and errors: `/messages/0/encryptedValueType`.
 * Keys come from untrusted input, so each segment is escaped and long ones are truncated
 * (a path names where something was, never what it contained — D-REDACT).
 */
export function toPointer(segments: readonly PropertyKey[]): string {
  let pointer = "";
  for (const segment of segments) pointer += `/${escapeSegment(segment)}`;
  return pointer;
}

function escapeSegment(segment: PropertyKey): string {
  if (typeof segment === "number") return String(segment);
  return truncateId(String(segment)).replace(/~/g, "~0").replace(/\//g, "~1");
}
