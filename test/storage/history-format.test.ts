import { toRunInputMessages, type ReasoningHistory } from "../../src";
import { historyToJSON, parseHistory, serializeHistory } from "../../src/storage/history-format";
import { ev, historyOf, msg } from "../../src/testing/builders";
import { runPipeline, TEST_PRODUCER } from "../../src/testing/run-pipeline";

/** A history with everything a stored form must keep: reasoning messages and values on both kinds of target, issuers, incomplete items. */
function richHistory(): ReasoningHistory {
  const run = runPipeline([
    ev.runStarted("r1"),
    ev.reasoningStart("s1"),
    ev.reasoningChunk("m1", "Let me think", { metadata: { provider: { step: 1 } } }),
    ev.reasoningEnd("s1"),
    ev.encryptedValue("message", "m1", "gAAAA-opaque+/=\u00e9"),
    ev.textChunk("a1", "Calling"),
    ev.toolCallStart("tc1", "search", { parentMessageId: "a1" }),
    ev.toolCallArgs("tc1", '{"q":"x"}'),
    ev.toolCallEnd("tc1"),
    ev.encryptedValue("tool-call", "tc1", ""),
    ev.toolCallResult("t1", "tc1", "found"),
    ev.activitySnapshot("act1", "progress", { done: 1 }),
    ev.reasoningMessageStart("m2"),
    ev.reasoningMessageContent("m2", "cut"),
    ev.runError("boom"),
  ]);
  expect(run.error).toBeUndefined();
  // A value issued by a pipeline without a producer (issuer undefined) and one still open.
  return {
    messages: [...run.history.messages, msg.user("u1", "hi", { encryptedValue: "v-user" })],
    incomplete: [...run.history.incomplete, { kind: "tool-call", id: "tc9", reason: "open" }],
    issuers: [...run.history.issuers, { subtype: "message", entityId: "u1", issuer: undefined }],
    durations: run.history.durations,
  };
}

// The getter's own error quotes content: it must not reach a TypeError's message (D-REDACT).
function throwing(object: Record<string, any>, key: string) {
  return Object.defineProperty({ ...object }, key, {
    enumerable: true,
    get: () => {
      throw new Error("secret thought");
    },
  });
}

describe("serializeHistory / parseHistory: the stored form", () => {
  it("R-REASON-17 D-ISSUER: lossless — messages with their values, issuers (also `undefined` ones) and the incomplete list come back exactly", () => {
    const history = richHistory();
    expect(history.issuers).toEqual([
      { subtype: "message", entityId: "m1", issuer: TEST_PRODUCER },
      { subtype: "tool-call", entityId: "tc1", issuer: TEST_PRODUCER },
      { subtype: "message", entityId: "u1", issuer: undefined },
    ]);
    expect(history.incomplete).toEqual([
      { kind: "message", id: "m2", reason: "abandoned" },
      { kind: "tool-call", id: "tc9", reason: "open" },
    ]);
    const text = serializeHistory(history);
    const back = parseHistory(text);
    expect(back).toStrictEqual(history);
    // Values travel back byte for byte, for their issuer only (R-REASON-26).
    const quiet = { producer: TEST_PRODUCER, onWarning: () => {} };
    expect(toRunInputMessages(back, quiet)).toEqual(toRunInputMessages(history, quiet));
  });

  it("R-REASON-17: the stored form is tagged and versioned, and historyToJSON gives it as a JSON value parseHistory also reads", () => {
    const history = historyOf([msg.reasoning("m1", "x", { encryptedValue: "v" })], {
      issuers: [{ subtype: "message", entityId: "m1", issuer: undefined }],
    });
    const json = historyToJSON(history);
    expect(json).toEqual({
      format: "agui-reasoning/history",
      version: 2,
      messages: history.messages,
      incomplete: [],
      issuers: [{ subtype: "message", entityId: "m1", issuer: null }],
      durations: [],
    });
    expect(JSON.parse(serializeHistory(history))).toEqual(json);
    expect(parseHistory(json)).toStrictEqual(history);
  });

  it("R-REASON-17: a long history (more messages than are built eagerly) is stored and read back whole", () => {
    const events: unknown[] = [ev.runStarted()];
    for (let i = 0; i < 200; i++)
      events.push(ev.reasoningChunk(`m${i}`, `thought ${i}`), ev.encryptedValue("message", `m${i}`, `v${i}`));
    events.push(ev.runFinished());
    const { history } = runPipeline(events);
    const back = parseHistory(serializeHistory(history));
    expect(back.messages).toHaveLength(200);
    expect(back.messages[199]).toEqual(msg.reasoning("m199", "thought 199", { encryptedValue: "v199" }));
    expect(back).toEqual({
      messages: [...history.messages],
      incomplete: [...history.incomplete],
      issuers: [...history.issuers],
      durations: [...history.durations],
    });
  });

  it("R-RUN-10: a parsed history seeds the next session's pipeline (initialHistory), which keeps accumulating", () => {
    const stored = parseHistory(serializeHistory(richHistory()));
    const next = runPipeline(
      [
        ev.runStarted("r2"),
        ev.reasoningMessageStart("m1"),
        ev.reasoningMessageContent("m1", " more"),
        ev.reasoningMessageEnd("m1"),
        ev.runFinished("r2"),
      ],
      {
        initialHistory: stored,
      },
    );
    expect(next.error).toBeUndefined();
    expect(next.history.messages[0]).toEqual({
      id: "m1",
      role: "reasoning",
      content: "Let me think more",
      metadata: { provider: { step: 1 } },
      encryptedValue: "gAAAA-opaque+/=\u00e9",
    });
    expect(next.history.issuers).toEqual(stored.issuers);
  });

  it("D-HISTORY-IDS: a history parsed from an object shares no object with it: changing the document later changes no history", () => {
    const doc = historyToJSON(richHistory());
    const before = serializeHistory(parseHistory(doc));
    const parsed = parseHistory(doc);
    const message = doc.messages[0] as unknown as { content: string; metadata: { provider: { step: number } } };
    message.content = "changed";
    message.metadata.provider.step = 2;
    (doc.incomplete as unknown[]).length = 0;
    expect(serializeHistory(parsed)).toBe(before);
  });

  it.each([
    [
      "a message whose getter throws",
      { messages: [throwing({ id: "u1", role: "user" }, "content")] },
      "/messages/0 cannot be read as JSON data (a read of it threw)",
    ],
    [
      "a message holding a BigInt",
      { messages: [{ id: "u1", role: "user", content: "secret thought", metadata: { n: 1n } }] },
      "/messages/0 cannot be read as JSON data (it holds a BigInt)",
    ],
    ["an issuer record that is not an object", { issuers: [null] }, "/issuers/0 must be an object (got null)"],
  ])(
    "D-REDACT: serializeHistory of a hand-built history with %s is a TypeError naming the entry, never the content",
    (_name, parts, message) => {
      const history = {
        messages: [],
        incomplete: [],
        issuers: [],
        durations: [],
        ...parts,
      } as unknown as ReasoningHistory;
      let error: unknown;
      try {
        serializeHistory(history);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(TypeError);
      expect((error as Error).message).toMatch(/^agui-reasoning: (serializeHistory|historyToJSON): /);
      expect((error as Error).message).toContain(message);
      expect((error as Error).message).not.toContain("secret thought");
    },
  );

  const good = () => JSON.parse(serializeHistory(richHistory())) as Record<string, any>;
  const revoked = () => {
    const { proxy, revoke } = Proxy.revocable([], {});
    revoke();
    return proxy;
  };
  const cases: [string, (doc: Record<string, any>) => unknown, string][] = [
    [
      "not JSON text (cut short)",
      (doc) => JSON.stringify(doc).slice(0, 40),
      "parseHistory: / is not valid JSON text (40 characters)",
    ],
    ["not an object", () => [], "parseHistory: / must be an object (got array)"],
    [
      "another format",
      (doc) => ({ ...doc, format: "agui-reasoning/pipeline-state" }),
      'parseHistory: /format must be "agui-reasoning/history"',
    ],
    [
      "a newer version",
      (doc) => ({ ...doc, version: 3 }),
      "parseHistory: /version is 3, newer than this package reads (2); upgrade agui-reasoning",
    ],
    ["no version", (doc) => ({ ...doc, version: undefined }), "parseHistory: /version must be 1…2 (got undefined)"],
    [
      "a duration record without its start (D-DURATION)",
      (doc) => ({ ...doc, durations: [{ kind: "message", id: "m1", startObserved: true }] }),
      "parseHistory: /durations/0/startedAt must be an integer (got undefined)",
    ],
    [
      "a duration record of an unknown kind (D-DURATION)",
      (doc) => ({ ...doc, durations: [{ kind: "turn", id: "m1", startedAt: 1, startObserved: false }] }),
      'parseHistory: /durations/0/kind must be one of "message" | "span" (got another string)',
    ],
    [
      "two duration records for one message (D-DURATION)",
      (doc) => ({ ...doc, durations: [doc.durations[1], doc.durations[1]] }),
      'parseHistory: /durations/1 is a second record for message "m1": one per item (D-DURATION)',
    ],
    [
      "messages not a list",
      (doc) => ({ ...doc, messages: {} }),
      "parseHistory: /messages must be an array (got object)",
    ],
    [
      "a message with an unknown role",
      (doc) => ({ ...doc, messages: [...doc.messages, { id: "x", role: "critic", content: "secret thought" }] }),
      'parseHistory: /messages/6 is not an AG-UI 1.0 message: the schema rejects /role (discriminator "role" must be one of',
    ],
    [
      "a message with a bad field",
      (doc) => ({ ...doc, messages: [{ ...doc.messages[0], encryptedValue: 12 }] }),
      "parseHistory: /messages/0 is not an AG-UI 1.0 message: the schema rejects /encryptedValue (expected string, received number)",
    ],
    [
      "a repeated message id (R-EVT-8)",
      (doc) => ({ ...doc, messages: [doc.messages[0], doc.messages[0]] }),
      'parseHistory: /messages/1/id repeats the id "m1": a history holds each message once (R-EVT-8)',
    ],
    [
      "an incomplete item with a bad reason",
      (doc) => ({ ...doc, incomplete: [{ kind: "message", id: "m2", reason: "lost" }] }),
      'parseHistory: /incomplete/0/reason must be one of "open" | "abandoned" | "truncated" (got another string)',
    ],
    [
      "an issuer of no subtype",
      (doc) => ({ ...doc, issuers: [{ entityId: "m1", issuer: null }] }),
      'parseHistory: /issuers/0/subtype must be one of "message" | "tool-call" (got undefined)',
    ],
    [
      "an issuer record without its issuer field",
      (doc) => ({ ...doc, issuers: [{ subtype: "message", entityId: "m1" }] }),
      "parseHistory: /issuers/0/issuer must be a string or null (got undefined)",
    ],
    [
      "a field whose getter throws (a document given as an object)",
      (doc) => throwing(doc, "format"),
      "parseHistory: /format cannot be read as JSON data (a read of it threw)",
    ],
    [
      "a message whose getter throws",
      (doc) => ({ ...doc, messages: [throwing(doc.messages[0], "content")] }),
      "parseHistory: /messages/0 cannot be read as JSON data (a read of it threw)",
    ],
    [
      "an issuer record whose getter throws",
      (doc) => ({ ...doc, issuers: [throwing(doc.issuers[0], "issuer")] }),
      "parseHistory: /issuers/0/issuer cannot be read as JSON data (a read of it threw)",
    ],
    [
      "a revoked proxy as the message list",
      (doc) => ({ ...doc, messages: revoked() }),
      "parseHistory: /messages cannot be read as JSON data (a read of it threw)",
    ],
    [
      "a message holding a cycle",
      (doc) => {
        const message = { ...doc.messages[0], metadata: {} as Record<string, unknown> };
        message.metadata.self = message.metadata;
        return { ...doc, messages: [message] };
      },
      "parseHistory: /messages/0 cannot be read as JSON data (it contains a cycle)",
    ],
    [
      "a hole in the message list (a structured clone keeps one)",
      (doc) => ({ ...doc, messages: new Array(2) }),
      "parseHistory: /messages/0 cannot be read as JSON data (a sparse array: JSON has no holes)",
    ],
    [
      "a sparse message list claiming 2³²−1 messages (refused at its first hole, not copied slot by slot)",
      (doc) => ({ ...doc, messages: Object.assign(new Array(2 ** 32 - 1), { 0: doc.messages[0] }) }),
      "parseHistory: /messages/1 cannot be read as JSON data (a sparse array: JSON has no holes)",
    ],
    [
      "a message whose metadata holds a sparse array of 2³²−1 slots",
      (doc) => ({ ...doc, messages: [{ ...doc.messages[0], metadata: { list: new Array(2 ** 32 - 1) } }] }),
      "parseHistory: /messages/0 cannot be read as JSON data (a sparse array: JSON has no holes)",
    ],
    [
      "an item listed twice as incomplete (D-TRUNC)",
      (doc) => ({ ...doc, incomplete: [doc.incomplete[0], { ...doc.incomplete[0], reason: "truncated" }] }),
      'parseHistory: /incomplete/1 is a second entry for message "m2": an item is listed once (D-TRUNC)',
    ],
    [
      "two issuer records for one value (D-ISSUER)",
      (doc) => ({ ...doc, issuers: [doc.issuers[0], { ...doc.issuers[0], issuer: "https://other" }] }),
      'parseHistory: /issuers/1 is a second record for message "m1": one issuer per stored value (D-ISSUER)',
    ],
  ];

  it.each(cases)(
    "R-PROC-4 D-REDACT: %s is a TypeError naming the JSON pointer, never the content",
    (_name, corrupt, message) => {
      const input = corrupt(good());
      expect(() => parseHistory(input)).toThrow(TypeError);
      expect(() => parseHistory(input)).toThrow(`agui-reasoning: ${message}`);
      try {
        parseHistory(input);
      } catch (e) {
        const text = (e as Error).message;
        for (const secret of ["secret thought", "Let me think", "gAAAA", "Calling"]) expect(text).not.toContain(secret);
      }
    },
  );
});
