/**
 * Characters a recording may carry that would act on the terminal or reorder what a reader sees:
 * C0 controls but the line feed the report is made of (ESC starts a terminal escape: `ESC[8m`
 * hides the rest of the line, verdict included), DEL, C1 controls (U+009B is a one-character CSI),
 * the bidirectional controls (U+061C, U+200E/F, U+202A–U+202E, U+2066–U+2069: "Trojan Source") and
 * the line and paragraph separators.
 */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const UNSAFE = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/**
 * `text` with every unsafe character shown escaped as `\u001b` (what JSON.stringify prints for the
 * C0 controls, so an id reads the same wherever it appears). Applied to the whole of every human,
 * annotation and XML output, and to error lines: nothing a recording holds reaches the terminal raw.
 */
export function printable(text: string): string {
  return text.replace(UNSAFE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}
