/**
 * The demo conversation as the user side sees it: what is asked in each turn, and what the server's
 * check of the returned encrypted values looks like. Shared by the terminal demo (examples/demo.ts)
 * and the web demo's page (examples/web/page.ts), so it imports nothing that needs Node: the page
 * runs in a browser.
 */
import type { ReturnedValue } from "../src/testing/returned-values";

export const DEMO_TURNS = [
  {
    title: "Turn 1 · a legacy producer (THINKING_* events)",
    question: "Train or car from Lyon to Marseille on Saturday, for four?",
  },
  {
    title: "Turn 2 · AG-UI 1.0: chunked reasoning, a tool call, encrypted values",
    question: "Check the train fares, please.",
  },
  { title: "Turn 3 · the encrypted values go back to the agent", question: "And if we book a week ahead?" },
] as const;

/** One line of the check, as both demos print it. */
export function checkLine(v: ReturnedValue): string {
  const label = `${v.subtype} ${v.entityId}`;
  return v.identical ? `✓ ${label}: ${v.bytes} bytes, byte-identical` : `✗ ${label}: missing or changed`;
}
