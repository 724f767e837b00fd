/** The id-like fields an error or warning may name (D-REDACT: ids are allowed, content is not). */
const ID_FIELDS = ["messageId", "toolCallId", "entityId", "stepName", "subagentRunId", "runId"] as const;

/** The string ids an event carries, in a fixed order; safe on any input. */
export function idsOf(event: unknown): string[] {
  const ids: string[] = [];
  if (typeof event !== "object" || event === null) return ids;
  for (const field of ID_FIELDS) {
    const value = (event as Record<string, unknown>)[field];
    if (typeof value === "string") ids.push(value);
  }
  return ids;
}
