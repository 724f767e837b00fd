/**
 * R-EVT-8: a list that names one message twice (its id, and whether it is a tool message:
 * D-HISTORY-IDS). A history holds each message once, so one copy is dropped — never silently: what
 * the dropped copy held (an encrypted value, tool calls) is lost, so the warning is lossy
 * (R-REASON-19, R-VER-6/7) and names where the copy stood and what it held, never its text or
 * value (D-REDACT).
 *
 * Found on the Vercel AI SDK adapter (integrations/vercel-ai-sdk in the AG-UI repository) with an
 * Anthropic model: its block ids are the content block's index ("0", "1"), which repeat in every
 * step, so its closing `MESSAGES_SNAPSHOT` lists "0" and "1" once per step. Before, the earlier
 * copies went without a word: the first step's signature and the tool call its result answers.
 */
import { from, lastValueFrom, toArray } from "rxjs";
import type { Message } from "@ag-ui/core";
import {
  parseHistory,
  reasoningPipeline,
  serializeHistory,
  type ReasoningHistory,
  type ReasoningPipelineOptions,
  type ReasoningWarning,
} from "../../src";
import { ev } from "../../src/testing/builders";
import { check, jsonl, useTempFiles } from "../integration/cli-support";

const PRODUCER = "http://127.0.0.1:8787/vercel-ai-sdk";

async function derive(
  events: readonly unknown[],
  options: Partial<ReasoningPipelineOptions> = {},
): Promise<{ history: ReasoningHistory; warnings: ReasoningWarning[] }> {
  const warnings: ReasoningWarning[] = [];
  const pipeline = reasoningPipeline(from(events as never[]), {
    producer: PRODUCER,
    onWarning: (w) => warnings.push(w),
    ...options,
  });
  let history: ReasoningHistory | undefined;
  pipeline.history$.subscribe((h) => (history = h));
  await lastValueFrom(pipeline.events$.pipe(toArray()));
  return { history: history!, warnings };
}

const call = (
  id: string,
  encryptedValue?: string,
): NonNullable<Extract<Message, { role: "assistant" }>["toolCalls"]>[number] => ({
  id,
  type: "function",
  function: { name: "get_weather", arguments: "{}" },
  ...(encryptedValue === undefined ? {} : { encryptedValue }),
});

/** The two steps' messages as the adapter's closing snapshot lists them. */
const stepCopies: Message[] = [
  { id: "0", role: "reasoning", content: "Step one thinking.", encryptedValue: "sig-step-1" },
  {
    id: "1",
    role: "assistant",
    content: "Let me check.",
    toolCalls: [call("toolu_01", "sig-call-1"), call("toolu_02")],
  },
  { id: "r1", role: "tool", toolCallId: "toolu_01", content: "sunny" },
  { id: "0", role: "reasoning", content: "Step two thinking.", encryptedValue: "sig-step-2" },
  { id: "1", role: "assistant", content: "It is sunny." },
];

describe("R-EVT-8 a list naming one message twice keeps one copy, with a lossy warning", () => {
  it("R-EVT-8 R-STATE-4 MESSAGES_SNAPSHOT: each copy replaces the one before it, so the last stays, where the first stood", async () => {
    const { history, warnings } = await derive([ev.runStarted(), ev.messagesSnapshot(stepCopies), ev.runFinished()]);
    expect(history.messages).toEqual([stepCopies[3], stepCopies[4], stepCopies[2]]);
    expect(history.issuers).toEqual([{ subtype: "message", entityId: "0", issuer: PRODUCER }]);
    expect(warnings).toEqual([
      {
        code: "DUPLICATE_MESSAGE_ID",
        rule: "R-EVT-8",
        lossy: true,
        eventType: "MESSAGES_SNAPSHOT",
        eventIndex: 1,
        ids: ["0"],
        path: "/messages/0",
        message:
          "MESSAGES_SNAPSHOT lists this message id more than once; a history holds each message once: the copy at /messages/0, holding an encrypted value, was dropped for the one at /messages/3",
      },
      expect.objectContaining({
        code: "DUPLICATE_MESSAGE_ID",
        lossy: true,
        ids: ["1"],
        path: "/messages/1",
        message: expect.stringContaining(
          "holding 2 tool calls (1 with an encrypted value), was dropped for the one at /messages/4",
        ),
      }),
    ]);
  });

  it("R-EVT-8 R-STATE-4 three copies in a snapshot: each replaces the one before it, so each earlier copy is dropped for the next", async () => {
    const copies: Message[] = [0, 1, 2].map((n) => ({ id: "0", role: "reasoning", content: `copy ${n}` }));
    const { history, warnings } = await derive([ev.runStarted(), ev.messagesSnapshot(copies), ev.runFinished()]);
    expect(history.messages).toEqual([copies[2]]);
    expect(warnings.map((w) => [w.path, w.message.slice(w.message.indexOf(": the copy"))])).toEqual([
      ["/messages/0", ": the copy at /messages/0 was dropped for the one at /messages/1"],
      ["/messages/1", ": the copy at /messages/1 was dropped for the one at /messages/2"],
    ]);
  });

  it("R-EVT-8 D-REDACT: the warnings name ids and places, never the dropped copy's text or value", async () => {
    const { warnings } = await derive([ev.runStarted(), ev.messagesSnapshot(stepCopies), ev.runFinished()]);
    const said = JSON.stringify(warnings);
    for (const secret of ["sig-step-1", "sig-call-1", "Step one", "Let me check"]) expect(said).not.toContain(secret);
  });

  it("R-EVT-8 D-HISTORY-IDS a tool message and an assistant message under one id are two messages, not a repeat", async () => {
    const shared: Message[] = [
      { id: "X", role: "assistant", toolCalls: [call("c1")] },
      { id: "X", role: "tool", toolCallId: "c1", content: "ok" },
    ];
    const { history, warnings } = await derive([ev.runStarted(), ev.messagesSnapshot(shared), ev.runFinished()]);
    expect(history.messages).toEqual(shared);
    expect(warnings).toEqual([]);
  });

  it("R-EVT-8 a snapshot repeating a held message: the held one is replaced by the last copy, in its place", async () => {
    const { history, warnings } = await derive([
      ev.runStarted(),
      ev.reasoningMessageStart("0"),
      ev.reasoningMessageContent("0", "streamed"),
      ev.reasoningMessageEnd("0"),
      ev.textStart("a"),
      ev.textEnd("a"),
      ev.messagesSnapshot([
        { id: "a", role: "assistant", content: "restated" },
        { id: "0", role: "reasoning", content: "first copy", encryptedValue: "v1" },
        { id: "0", role: "reasoning", content: "second copy" },
      ]),
      ev.runFinished(),
    ]);
    expect(history.messages).toEqual([
      { id: "0", role: "reasoning", content: "second copy" },
      { id: "a", role: "assistant", content: "restated" },
    ]);
    // The value went with the copy that carried it: no issuer record is left for it.
    expect(history.issuers).toEqual([]);
    expect(warnings.map((w) => [w.code, w.path, w.lossy])).toEqual([["DUPLICATE_MESSAGE_ID", "/messages/1", true]]);
  });

  it("R-EVT-8 RUN_STARTED.input: a held message is left as it is, so the first copy the echo lists stays", async () => {
    const echoed: Message[] = [
      { id: "u1", role: "user", content: "Weather?" },
      { id: "0", role: "reasoning", content: "first", encryptedValue: "sig-1" },
      { id: "0", role: "reasoning", content: "second", encryptedValue: "sig-2" },
      { id: "u1", role: "user", content: "Weather again?" },
    ];
    const input = {
      threadId: "t1",
      runId: "r1",
      messages: echoed,
      tools: [],
      context: [],
      state: {},
      forwardedProps: {},
    };
    const { history, warnings } = await derive([ev.runStarted("r1", { input }), ev.runFinished()]);
    expect(history.messages).toEqual([echoed[0], echoed[1]]);
    expect(warnings.map((w) => [w.code, w.eventType, w.ids, w.path, w.lossy])).toEqual([
      ["DUPLICATE_MESSAGE_ID", "RUN_STARTED", ["0"], "/input/messages/2", true],
      ["DUPLICATE_MESSAGE_ID", "RUN_STARTED", ["u1"], "/input/messages/3", true],
    ]);
    expect(warnings[0]!.message).toContain("holding an encrypted value, was dropped for the one at /input/messages/1");
    expect(warnings[1]!.message).not.toContain("holding");
  });

  it("R-EVT-8 D-HISTORY-IDS initialMessages and initialHistory repeating a message are refused, as parseHistory refuses them", () => {
    const repeated: Message[] = [
      { id: "u1", role: "user", content: "a" },
      { id: "m", role: "assistant", content: "b" },
      { id: "m", role: "assistant", content: "c" },
    ];
    const expected =
      'agui-reasoning: initialMessages[2] repeats the id "m" of initialMessages[1]: a history holds each message once (R-EVT-8)';
    expect(() => reasoningPipeline(from([]), { producer: PRODUCER, initialMessages: repeated })).toThrow(
      new TypeError(expected),
    );
    const history: ReasoningHistory = { messages: repeated, incomplete: [], issuers: [], durations: [] };
    expect(() => reasoningPipeline(from([]), { producer: PRODUCER, initialHistory: history })).toThrow(
      /initialHistory\.messages\[2\] repeats the id "m" of initialHistory\.messages\[1\]/,
    );
    expect(() => parseHistory(serializeHistory(history))).toThrow(/repeats the id "m"/);
  });

  it("R-EVT-8 D-HISTORY-IDS what a repeating snapshot leaves is a history every way in accepts", async () => {
    const { history } = await derive([ev.runStarted(), ev.messagesSnapshot(stepCopies), ev.runFinished()]);
    expect(parseHistory(serializeHistory(history))).toEqual(history);
    const again = await derive([ev.runStarted("r2"), ev.runFinished("r2")], { initialHistory: history });
    expect(again.history).toEqual(history);
  });
});

describe("R-EVT-8 agui-reasoning check reports a repeating snapshot", () => {
  const file = useTempFiles("agui-repeated-");

  it("R-EVT-8 D-REDACT the run stays valid; the lossy warnings name the ids, not what was dropped", async () => {
    const events = [ev.runStarted(), ev.messagesSnapshot(stepCopies), ev.runFinished()];
    const r = await check(["check", file("repeated.jsonl", jsonl(events))]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('DUPLICATE_MESSAGE_ID (R-EVT-8) at event #1 MESSAGES_SNAPSHOT ["0"]');
    for (const secret of ["sig-step-1", "sig-call-1", "Step one", "Let me check"])
      expect(r.stdout).not.toContain(secret);
  });
});
