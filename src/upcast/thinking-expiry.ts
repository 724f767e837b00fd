/**
 * When the `THINKING_*` translation expires (R-DEP-3): twelve months after the AG-UI 1.0 release
 * of 2026-09-17, as the post-release deprecation registry states. A date without a time is UTC midnight.
 */
export const DEFAULT_THINKING_EXPIRY = "2027-09-17";

/** The expiry option as epoch milliseconds. A date that does not parse is a configuration error, reported at once. */
export function expiryTime(expiresAt: Date | string = DEFAULT_THINKING_EXPIRY): number {
  const time = expiresAt instanceof Date ? expiresAt.getTime() : Date.parse(expiresAt);
  if (Number.isNaN(time)) {
    throw new RangeError(`upcastThinking: expiresAt ${JSON.stringify(String(expiresAt))} is not a valid date`);
  }
  return time;
}
