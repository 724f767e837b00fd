import { createHash } from "node:crypto";
import { returnedValues, type RecordedRequest, type ServerScript, type ServerTurnOptions } from "../src/testing";

/**
 * The demo's agent: a travel assistant answering over three turns.
 *
 * 1. An older deployment answers with retired `THINKING_*` reasoning events.
 * 2. The upgraded (AG-UI 1.0) deployment thinks in chunked `REASONING_MESSAGE_CHUNK`s, calls a tool,
 *    and hands back two encrypted values: one on its reasoning message, one on its tool call.
 * 3. The follow-up: the agent reads the encrypted values the client sent back, checks them against
 *    what it issued, and says how many it could restore.
 */

/** An opaque, deterministic stand-in for a provider's encrypted reasoning blob. */
function opaqueBlob(seed: string, bytes: number): string {
  const chunks: Buffer[] = [];
  for (let i = 0; chunks.length * 64 < bytes; i++) chunks.push(createHash("sha512").update(`${seed}:${i}`).digest());
  return Buffer.concat(chunks).subarray(0, bytes).toString("base64");
}

/** The values turn 2 issues, by target: what the server expects to get back unchanged. */
export const ISSUED = [
  { subtype: "message", entityId: "reasoning-2", encryptedValue: `gAAAAA${opaqueBlob("reasoning-2", 240)}` },
  { subtype: "tool-call", entityId: "call-fares", encryptedValue: `rs_${opaqueBlob("call-fares", 96)}` },
] as const;

const THREAD = "thread-demo";
const words = (text: string): string[] => text.match(/\S+\s*/g) ?? [];

/** Turn 1: a legacy producer (0.x `THINKING_*` events, no ids on them). */
function legacyTurn(): ServerTurnOptions {
  return {
    framePauseMs: 25,
    events: [
      { type: "RUN_STARTED", threadId: THREAD, runId: "run-1" },
      { type: "THINKING_START", title: "Reading the question" },
      { type: "THINKING_TEXT_MESSAGE_START" },
      ...words(
        "Family of four, Lyon to Marseille on Saturday. Compare the 10:40 TGV with driving: tolls, fuel, parking.",
      ).map((delta) => ({ type: "THINKING_TEXT_MESSAGE_CONTENT", delta })),
      { type: "THINKING_TEXT_MESSAGE_END" },
      { type: "THINKING_END" },
      { type: "TEXT_MESSAGE_START", messageId: "answer-1", role: "assistant" },
      ...words("Driving costs about €95 (fuel €48, tolls €35, parking €12). I can check today's train fares.").map(
        (delta) => ({ type: "TEXT_MESSAGE_CONTENT", messageId: "answer-1", delta }),
      ),
      { type: "TEXT_MESSAGE_END", messageId: "answer-1" },
      { type: "RUN_FINISHED", threadId: THREAD, runId: "run-1" },
    ],
  };
}

/** Turn 2: AG-UI 1.0 — a reasoning span of chunks, a tool call, two encrypted values. */
export function modernTurn(): ServerTurnOptions {
  const [onReasoning, onToolCall] = ISSUED;
  return {
    framePauseMs: 25,
    events: [
      { type: "RUN_STARTED", threadId: THREAD, runId: "run-2" },
      { type: "REASONING_START", messageId: "span-2" },
      ...words(
        "Fares change daily; the family railcard applies to two adults and two children — check Saturday's 10:40 with it.",
      ).map((delta, i) => ({
        type: "REASONING_MESSAGE_CHUNK",
        ...(i === 0 ? { messageId: "reasoning-2" } : {}),
        delta,
      })),
      { type: "REASONING_END", messageId: "span-2" },
      { type: "REASONING_ENCRYPTED_VALUE", ...onReasoning },
      { type: "TEXT_MESSAGE_CHUNK", messageId: "answer-2", delta: "Checking Saturday's fares… " },
      {
        type: "TOOL_CALL_CHUNK",
        toolCallId: "call-fares",
        toolCallName: "lookup_fares",
        parentMessageId: "answer-2",
        delta: '{"from":"Lyon",',
      },
      { type: "TOOL_CALL_CHUNK", delta: '"to":"Marseille","date":"Saturday",' },
      { type: "TOOL_CALL_CHUNK", delta: '"railcard":"family"}' },
      {
        type: "TOOL_CALL_RESULT",
        messageId: "fares-result",
        toolCallId: "call-fares",
        content: '{"10:40":{"total":"€76"}}',
      },
      { type: "REASONING_ENCRYPTED_VALUE", ...onToolCall },
      { type: "TEXT_MESSAGE_START", messageId: "answer-3", role: "assistant" },
      ...words(
        "The 10:40 TGV is €76 for all four with the family railcard — €19 less than driving, and no parking.",
      ).map((delta) => ({ type: "TEXT_MESSAGE_CONTENT", messageId: "answer-3", delta })),
      { type: "TEXT_MESSAGE_END", messageId: "answer-3" },
      { type: "RUN_FINISHED", threadId: THREAD, runId: "run-2" },
    ],
  };
}

/** How many of the issued values came back exactly. */
export function restoredValues(request: RecordedRequest): number {
  return returnedValues(request, ISSUED).filter((v) => v.identical).length;
}

/** Which turn a request is: the number of user messages it carries (so a reloaded web page starts over). */
function turnNumber(request: RecordedRequest): number {
  const messages = (request.json as { messages?: Array<Record<string, unknown>> } | undefined)?.messages ?? [];
  return messages.filter((m) => m.role === "user").length;
}

/** Turn 3: the follow-up, answered from what came back. */
export function followUpTurn(request: RecordedRequest): ServerTurnOptions {
  const restored = restoredValues(request);
  const answer =
    restored === ISSUED.length
      ? "With my earlier reasoning restored: book a week ahead and the same train drops to €58."
      : `I could restore only ${restored} of ${ISSUED.length} reasoning items, so I have to start over.`;
  return {
    framePauseMs: 25,
    events: [
      { type: "RUN_STARTED", threadId: THREAD, runId: "run-3" },
      { type: "TEXT_MESSAGE_CHUNK", messageId: "answer-4", delta: "" },
      ...words(answer).map((delta) => ({ type: "TEXT_MESSAGE_CHUNK", delta })),
      { type: "RUN_FINISHED", threadId: THREAD, runId: "run-3" },
    ],
  };
}

/** The script for `mockAgentServer`: a request with n user messages gets turn n. */
export const demoAgent: ServerScript = (request) => {
  switch (turnNumber(request)) {
    case 0:
    case 1:
      return legacyTurn();
    case 2:
      return modernTurn();
    default:
      return followUpTurn(request);
  }
};
