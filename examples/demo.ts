/**
 * `npm start`: an offline, end-to-end tour. A local AG-UI agent server streams a three-turn
 * conversation over real HTTP; a real `HttpAgent` reads it; `reasoningPipeline` upcasts, validates,
 * expands, verifies and derives the history; the reasoning is shown dimmed (as a UI would collapse
 * it) and the answer as it streams. Last, the server's copy of turn 3's request is compared with
 * the encrypted values it issued in turn 2, byte for byte.
 */
import { HttpAgent } from "@ag-ui/client";
import type { Message, RunAgentInput } from "@ag-ui/core";
import {
  emptyHistory,
  reasoningPipeline,
  toRunInputMessages,
  type ReasoningHistory,
  type ReasoningWarning,
} from "../src";
import type { AguiEvent } from "../src/core/types";
import { agentEvents } from "../src/integration/agent-events";
import { mockAgentServer, returnedValues, type MockAgentServer } from "../src/testing";
import { ISSUED, demoAgent } from "./demo-agent";
import { DEMO_TURNS, checkLine } from "./demo-turns";

// eslint-disable-next-line @typescript-eslint/no-unnecessary-boolean-literal-compare -- isTTY is undefined, not false, off a terminal
const color = process.stdout.isTTY === true && !process.env.NO_COLOR;
const style = (open: string, close: string) => (text: string) => (color ? `\x1b[${open}m${text}\x1b[${close}m` : text);
const dim = style("2", "22");
const bold = style("1", "22");
const yellow = style("33", "39");
const green = style("32", "39");
const red = style("31", "39");
const write = (text: string): void => void process.stdout.write(text);

/** Prints validated events the way a chat UI would show them. */
function show(event: AguiEvent): void {
  switch (event.type) {
    case "REASONING_MESSAGE_START":
      write(dim("\n  ▸ thinking  "));
      break;
    case "REASONING_MESSAGE_CONTENT":
      write(dim(String(event.delta)));
      break;
    case "REASONING_MESSAGE_END":
      write("\n");
      break;
    case "TEXT_MESSAGE_START":
      write(bold("\n  assistant  "));
      break;
    case "TEXT_MESSAGE_CONTENT":
      write(String(event.delta));
      break;
    case "TEXT_MESSAGE_END":
      write("\n");
      break;
    case "TOOL_CALL_START":
      write(`\n  → ${String(event.toolCallName)}(`);
      break;
    case "TOOL_CALL_ARGS":
      write(String(event.delta));
      break;
    case "TOOL_CALL_END":
      write(")\n");
      break;
    case "TOOL_CALL_RESULT":
      write(`  ← ${String(event.content)}\n`);
      break;
    case "REASONING_ENCRYPTED_VALUE":
      write(
        dim(
          `  🔒 encrypted value stored on ${String(event.subtype)} ${String(event.entityId)} (${Buffer.byteLength(String(event.encryptedValue))} bytes)\n`,
        ),
      );
      break;
    default:
      break; // a chat UI shows nothing else
  }
}

/** One turn: POST the history, stream the answer through the pipeline, return the new history. */
async function turn(
  server: MockAgentServer,
  title: string,
  history: ReasoningHistory,
  question: string,
  n: number,
): Promise<ReasoningHistory> {
  write(`\n${bold(title)}\n  user       ${question}\n`);
  const user: Message = { id: `user-${n}`, role: "user", content: question };
  const before: ReasoningHistory = { ...history, messages: [...history.messages, user] };
  const input: RunAgentInput = {
    threadId: "thread-demo",
    runId: `run-${n}`,
    messages: toRunInputMessages(before, { producer: server.url, onWarning: note }),
    tools: [],
    context: [],
    state: {},
    forwardedProps: {},
  };
  const agent = new HttpAgent({ url: server.url });
  const warnings: ReasoningWarning[] = [];
  const pipeline = reasoningPipeline(agentEvents(agent, input), {
    producer: server.url,
    initialHistory: before,
    onWarning: (w) => warnings.push(w),
  });
  await new Promise<void>((resolve, reject) =>
    pipeline.events$.subscribe({ next: show, error: reject, complete: resolve }),
  );
  summarize(warnings);
  return pipeline.history;
}

/** Warnings are for developers: one line per code, after the turn, so they do not interrupt the answer. */
function summarize(warnings: readonly ReasoningWarning[]): void {
  const byCode = new Map<string, ReasoningWarning[]>();
  for (const w of warnings) byCode.set(w.code, [...(byCode.get(w.code) ?? []), w]);
  for (const [code, list] of byCode) write(yellow(`  ⚠ ${code} ×${list.length}, e.g. ${list[0]!.message}\n`));
}

/** A warning while building the run input (e.g. a value withheld from another producer). */
function note(w: ReasoningWarning): void {
  write(yellow(`  ⚠ ${w.code}: ${w.message}\n`));
}

async function main(): Promise<number> {
  const server = await mockAgentServer(demoAgent);
  try {
    write(bold("agui-reasoning demo") + dim(` — a local AG-UI agent at ${server.url}\n`));
    let history = emptyHistory();
    for (const [i, { title, question }] of DEMO_TURNS.entries())
      history = await turn(server, title, history, question, i + 1);

    const reasoning = history.messages.filter((m) => m.role === "reasoning").length;
    write(
      `\n${bold("History")}  ${history.messages.length} messages, ${reasoning} of them reasoning (kept and sent back)\n`,
    );
    write(`\n${bold("What the server received in turn 3")}\n`);
    return verify(server) ? 0 : 1;
  } finally {
    await server.close();
  }
}

/** Each value the server issued must be in turn 3's request, on its message or tool call, byte for byte. */
function verify(server: MockAgentServer): boolean {
  const returned = returnedValues(server.requests[2], ISSUED);
  for (const v of returned) write((v.identical ? green : red)(`  ${checkLine(v)}\n`));
  return returned.every((v) => v.identical);
}

const deadline = setTimeout(() => {
  process.stderr.write("demo: timed out after 15 s\n");
  process.exit(1);
}, 15_000);
main().then(
  (code) => {
    clearTimeout(deadline);
    process.exitCode = code;
  },
  (error: unknown) => {
    clearTimeout(deadline);
    process.stderr.write(`demo failed: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);
