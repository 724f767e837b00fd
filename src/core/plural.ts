/**
 * `1 byte`, `2 bytes`: a count and its noun, for messages (counts only, never content: D-REDACT).
 * `shown` is how the count is written (the CLI groups thousands).
 */
export function plural(n: number, noun: string, shown = String(n)): string {
  return `${shown} ${noun}${n === 1 ? "" : "s"}`;
}
