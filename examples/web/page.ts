/**
 * The web demo's page script, bundled for the browser by examples/web/serve.ts. It does in a web page
 * what `npm start` does in a terminal: `@ag-ui/client`'s `HttpAgent` talks to the local example agent,
 * `reasoningPipeline` upcasts, validates, expands, verifies and derives the history, and the page
 * renders `history$`, paced to one history per animation frame (D-PACE), through the display view
 * `reasoningView` — reasoning in a "Thinking…" panel that collapses to "Thought for N s" (D-DURATION)
 * when the reasoning message ends, the answer as it streams, tool calls with their arguments and results, a lock badge (byte
 * length only) on whatever holds an encrypted value — and `warnings$` as they arrive. Turn 3 sends the
 * values back; the server's byte-for-byte check is shown last. Plain DOM, no framework.
 */
import { HttpAgent } from "@ag-ui/client";
import type { Message, RunAgentInput, ToolCall } from "@ag-ui/core";
import { animationFrameScheduler } from "rxjs";
import {
  agentEvents,
  emptyHistory,
  reasoningPipeline,
  reasoningView as viewOf,
  toRunInputMessages,
  type ReasoningBlock,
  type ReasoningHistory,
  type ReasoningView,
  type ReasoningWarning,
} from "../../src";
import type { ReturnedValue } from "../../src/testing/returned-values";
import { DEMO_TURNS, checkLine } from "../demo-turns";

/** The agent beside this page (same server, same origin). Also the producer identity of its values (D-ISSUER). */
const AGENT_URL = new URL("/agent", location.href).href;

const conversation = byId("conversation");
const warningList = byId("warnings");
const checkList = byId("check");
const status = byId("status");

function byId(id: string): HTMLElement {
  const found = document.getElementById(id);
  if (found === null) throw new Error(`web demo: #${id} missing from the page`);
  return found;
}

function element(tag: string, className: string, text?: string): HTMLElement {
  const node = document.createElement(tag);
  node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

const utf8 = new TextEncoder();

/** The lock badge: an encrypted value is opaque, so the page shows that it is there and its size, never its content. */
function lockBadge(value: string | undefined): HTMLElement[] {
  if (value === undefined) return [];
  const badge = element("span", "lock", `${utf8.encode(value).length} bytes`);
  badge.title = "An encrypted value: kept in the history and sent back to the agent unchanged, never shown.";
  badge.setAttribute("aria-label", `encrypted value, ${badge.textContent}`);
  return [badge];
}

/** The encrypted value a message or tool call holds, if any (not every message type declares one). */
function encryptedValueOf(holder: object): string | undefined {
  const value = (holder as { encryptedValue?: unknown }).encryptedValue;
  return typeof value === "string" ? value : undefined;
}

/** Text of a message, whichever content shape it has. */
function textOf(message: Message): string {
  const content = (message as { content?: unknown }).content;
  return typeof content === "string" ? content : "";
}

/** What the summary line says of a block (from the display view): its state, title and duration. */
function summaryOf(block: ReasoningBlock): string {
  if (block.streaming) return "Thinking…";
  if (block.redacted) return "Reasoning hidden by the provider";
  const seconds = block.durationMs === undefined ? "" : ` for ${(block.durationMs / 1000).toFixed(1)} s`;
  return `${block.title ?? "Thought"}${seconds}`;
}

/** A reasoning block: open while it streams, a collapsed one-line summary once it ended (click to expand). */
function reasoningPanel(message: Message, block: ReasoningBlock): HTMLElement {
  const { text, streaming } = block;
  const panel = element("details", "reasoning");
  (panel as HTMLDetailsElement).open = streaming;
  const summary = element("summary", "reasoning-summary", summaryOf(block));
  // Collapsed, the first words stand for the rest (one line, cut by CSS).
  if (!streaming) summary.append(element("span", "gist", text));
  summary.append(...lockBadge(encryptedValueOf(message)));
  panel.append(summary, element("p", "reasoning-text", text));
  return panel;
}

function toolCallView(call: ToolCall, streaming: boolean): HTMLElement {
  const card = element("div", "tool-call");
  card.dataset.toolCallId = call.id;
  const head = element("div", "tool-head", `→ ${call.function.name}`);
  head.append(...lockBadge(encryptedValueOf(call)));
  card.append(head, element("code", "tool-args", call.function.arguments + (streaming ? "…" : "")));
  return card;
}

/** One message as the page shows it. `open` holds the ids of messages and tool calls still streaming. */
function messageView(message: Message, open: ReadonlySet<string>, block: ReasoningBlock | undefined): HTMLElement {
  const row = element("div", `message ${message.role}`);
  row.dataset.messageId = message.id;
  const streaming = open.has(message.id);
  switch (message.role) {
    case "reasoning":
      if (block !== undefined) row.append(reasoningPanel(message, block));
      break;
    case "tool":
      row.append(element("div", "tool-result", `← ${textOf(message)}`));
      break;
    default: {
      const text = element("div", "text", textOf(message));
      if (streaming) text.classList.add("streaming");
      row.append(element("span", "role", message.role), text, ...lockBadge(encryptedValueOf(message)));
      for (const call of message.role === "assistant" ? (message.toolCalls ?? []) : []) {
        row.append(toolCallView(call, open.has(call.id)));
      }
    }
  }
  return row;
}

/**
 * Renders a history state. The history is immutable with structural sharing (docs/operators.md), so a
 * message whose object did not change keeps its element; only changed ones (usually the one
 * streaming) are rebuilt. `rendered` maps message id → the object and element last shown. (The walk
 * over all messages per state is the page's own cost, fine for a demo; a long-lived UI would track
 * only the messages that can still change.)
 */
const rendered = new Map<string, { message: Message; streaming: boolean; block?: ReasoningBlock; view: HTMLElement }>();
// The display view of the last history rendered: unchanged turns keep their objects (and blocks).
let shownView: ReasoningView | undefined;
function render(history: ReasoningHistory): void {
  const open = new Set(history.incomplete.filter((item) => item.reason === "open").map((item) => item.id));
  const view = viewOf(history, shownView);
  const blocks = new Map<string, ReasoningBlock>();
  view.turns.forEach((turn, i) => {
    if (turn === shownView?.turns[i]) return;
    for (const group of turn.groups) for (const block of group.blocks) blocks.set(block.id, block);
  });
  shownView = view;
  for (const message of history.messages) {
    const streaming =
      open.has(message.id) || (message.role === "assistant" && (message.toolCalls ?? []).some((c) => open.has(c.id)));
    const shown = rendered.get(message.id);
    const block = blocks.get(message.id) ?? shown?.block;
    if (shown !== undefined && shown.message === message && shown.streaming === streaming && shown.block === block)
      continue;
    const row = messageView(message, open, block);
    if (shown === undefined) conversation.append(row);
    else shown.view.replaceWith(row);
    rendered.set(message.id, { message, streaming, block, view: row });
  }
}

/** One line per turn and warning code, its count going up as more arrive (e.g. one THINKING_UPCAST per event). */
const warningLines = new Map<string, { count: number; counter: HTMLElement; item: HTMLElement }>();
function showWarning(turn: number, warning: ReasoningWarning): void {
  const key = `${turn} ${warning.code}`;
  const line = warningLines.get(key);
  if (line !== undefined) {
    line.count++;
    line.counter.textContent = ` ×${line.count}`;
    return;
  }
  // The first one's message as the example: messages carry ids, types and counts only, never reasoning text or a value (D-REDACT).
  const item = element("li", "warning");
  const counter = element("span", "count", " ×1");
  item.append(element("strong", "code", `turn ${turn} · ${warning.code}`), counter, ` — e.g. ${warning.message}`);
  item.dataset.code = warning.code;
  warningList.append(item);
  warningLines.set(key, { count: 1, counter, item });
}

/**
 * The console gets what the page shows: one line per grouped warning of the turn, with its count, once
 * the turn is over (the pipeline's own console sink is off, as the page passes `onWarning`).
 */
function logWarnings(turn: number): void {
  for (const [key, line] of warningLines) {
    if (key.startsWith(`${turn} `)) console.warn(`[agui-reasoning web demo] ${line.item.textContent ?? ""}`);
  }
}

/** One turn: send the history with the new question, stream the answer through the pipeline. */
async function runTurn(history: ReasoningHistory, n: number): Promise<ReasoningHistory> {
  const { title, question } = DEMO_TURNS[n - 1]!;
  conversation.append(element("h2", "turn", title));
  const user: Message = { id: `user-${n}`, role: "user", content: question };
  const before: ReasoningHistory = { ...history, messages: [...history.messages, user] };
  const input: RunAgentInput = {
    threadId: "thread-demo",
    runId: `run-${n}`,
    messages: toRunInputMessages(before, { producer: AGENT_URL, onWarning: (w) => showWarning(n, w) }),
    tools: [],
    context: [],
    state: {},
    forwardedProps: {},
  };
  const pipeline = reasoningPipeline(agentEvents(new HttpAgent({ url: AGENT_URL }), input), {
    producer: AGENT_URL,
    initialHistory: before,
    // Warnings as they arrive, grouped on the page (and not also one console line each).
    onWarning: (w) => showWarning(n, w),
    // D-PACE: at most one history per animation frame; the run's last one before its RUN_FINISHED.
    historyPace: 0,
    scheduler: animationFrameScheduler,
  });
  // For the browser test: histories rendered, and whether the one rendered when RUN_FINISHED arrived was the last.
  pacing.turns++;
  // The view completes with events$, awaited below: nothing to unsubscribe.
  // eslint-disable-next-line rxjs-x/no-ignored-subscription
  pipeline.history$.subscribe((h) => {
    pacing.histories++;
    render(h);
  });
  let atFinish: ReasoningHistory | undefined;
  try {
    await new Promise<void>((resolve, reject) =>
      pipeline.events$.subscribe({
        next: (e) => {
          if (e.type === "RUN_FINISHED") atFinish = pipeline.history;
        },
        error: reject,
        complete: resolve,
      }),
    );
    if (atFinish === pipeline.history) pacing.finishedAfterLast++;
  } finally {
    logWarnings(n);
  }
  return pipeline.history;
}

/** The server's word on turn 3's request: was each value it issued sent back byte for byte? */
async function showCheck(): Promise<boolean> {
  const response = await fetch("/check");
  const returned = (await response.json()) as ReturnedValue[];
  for (const v of returned) {
    checkList.append(element("li", v.identical ? "ok" : "bad", checkLine(v)));
  }
  return returned.length > 0 && returned.every((v) => v.identical);
}

/** What the browser test reads of the pacing (D-PACE): counts over the three turns. */
const pacing = { turns: 0, histories: 0, frames: 0, finishedAfterLast: 0 };
(window as { demoPacing?: typeof pacing }).demoPacing = pacing;

async function main(): Promise<void> {
  let counting = true;
  const frame = (): void => {
    pacing.frames++;
    if (counting) requestAnimationFrame(frame);
  };
  requestAnimationFrame(frame);
  try {
    await turns();
  } finally {
    counting = false;
  }
}

async function turns(): Promise<void> {
  status.textContent = `running against ${AGENT_URL}…`;
  let history = emptyHistory();
  for (let n = 1; n <= DEMO_TURNS.length; n++) history = await runTurn(history, n);
  const ok = await showCheck();
  status.textContent = ok
    ? "done: every encrypted value went back byte-identical"
    : "done, but a value did not come back unchanged";
  document.body.dataset.state = ok ? "done" : "failed";
}

main().catch((error: unknown) => {
  // A ReasoningProtocolError's message names event index, type, ids and rule, never content (D-REDACT).
  status.textContent = `failed: ${error instanceof Error ? error.message : String(error)}`;
  document.body.dataset.state = "failed";
});
