import type { ReasoningHistory } from "../../src";
import { saveHistory, type HistoryStore } from "../../src/storage/history-store";
import { InMemoryHistoryStore } from "../../src/storage/in-memory-store";
import { KeyValueHistoryStore } from "../../src/storage";
import { stripValues } from "../../src/storage/strip-values";
import { historyOf, msg } from "../../src/testing/builders";
import { collectWarnings } from "../../src/testing/marbles";

const PRODUCER = "https://agent.example/run";

/** Values on a reasoning message, on a user message and on a tool call; one message without any. */
function historyWithValues(): ReasoningHistory {
  return historyOf(
    [
      msg.user("u1", "question"),
      msg.reasoning("m1", "thinking", { encryptedValue: "gAAAA-secret-one" }),
      msg.assistant("a1", "answer", {
        toolCalls: [
          msg.toolCall("tc1", "search", "{}", { encryptedValue: "gAAAA-secret-two" }),
          msg.toolCall("tc2", "fetch", "{}"),
        ],
      }),
    ],
    {
      incomplete: [{ kind: "message", id: "m1", reason: "truncated" }],
      issuers: [
        { subtype: "message", entityId: "m1", issuer: PRODUCER },
        { subtype: "tool-call", entityId: "tc1", issuer: PRODUCER },
      ],
    },
  );
}

describe("HistoryStore, saveHistory and the in-memory reference store", () => {
  it("R-REASON-17: a store that keeps values gives the history back exactly, without a warning", async () => {
    const store = new InMemoryHistoryStore();
    const sink = collectWarnings();
    const history = historyWithValues();
    await saveHistory(store, "t1", history, sink);
    expect(sink.warnings).toEqual([]);
    expect(store.capabilities).toEqual({ encryptedValues: true });
    expect(await store.load("t1")).toStrictEqual(history);
  });

  it("#85 R-REASON-19 R-VER-6: a store that cannot carry values gets the history without them, and one lossy VALUE_NOT_STORED warning names the message and tool-call ids", async () => {
    const store = new InMemoryHistoryStore({ encryptedValues: false });
    const sink = collectWarnings();
    const history = historyWithValues();
    await saveHistory(store, "t1", history, sink);
    expect(sink.warnings).toEqual([
      {
        code: "VALUE_NOT_STORED",
        rule: "R-REASON-19",
        message: expect.stringContaining("2 encrypted value(s) not stored"),
        ids: ["m1", "tc1"],
        lossy: true,
      },
    ]);
    expect(JSON.stringify(sink.warnings)).not.toContain("gAAAA");
    const loaded = await store.load("t1");
    // D-ISSUER: the records go with the values they described; everything else is kept.
    expect(loaded).toStrictEqual(
      historyOf(
        [
          msg.user("u1", "question"),
          msg.reasoning("m1", "thinking"),
          msg.assistant("a1", "answer", {
            toolCalls: [msg.toolCall("tc1", "search", "{}"), msg.toolCall("tc2", "fetch", "{}")],
          }),
        ],
        { incomplete: [{ kind: "message", id: "m1", reason: "truncated" }] },
      ),
    );
    // The caller's history is not touched.
    expect(history).toStrictEqual(historyWithValues());
  });

  it("R-VER-7 D-WARN: the loss cannot be silenced — `quiet` still delivers it to a sink, and the default sink prints it", async () => {
    const sink = collectWarnings();
    await saveHistory(new InMemoryHistoryStore({ encryptedValues: false }), "t1", historyWithValues(), {
      onWarning: sink.onWarning,
      quiet: true,
    });
    expect(sink.codes()).toEqual(["VALUE_NOT_STORED"]);
    const printed = jest.spyOn(console, "warn").mockImplementation(() => {});
    try {
      await saveHistory(new InMemoryHistoryStore({ encryptedValues: false }), "t1", historyWithValues(), {
        quiet: true,
      });
      expect(printed).toHaveBeenCalledTimes(1);
      expect(String(printed.mock.calls[0]![0])).toBe(
        '[agui-reasoning] VALUE_NOT_STORED (R-REASON-19) ["m1", "tc1"]: 2 encrypted value(s) not stored: the history store cannot carry encrypted values, so the producer cannot restore that reasoning context in a later run (R-VER-6); use a store that keeps them',
      );
    } finally {
      printed.mockRestore();
    }
  });

  it("R-REASON-19: nothing is lost, nothing is said — a history without values reaches an incapable store as the same object", async () => {
    const saved: ReasoningHistory[] = [];
    const store: HistoryStore = {
      capabilities: { encryptedValues: false },
      save: async (_threadId, history) => void saved.push(history),
      load: async () => undefined,
    };
    const sink = collectWarnings();
    const history = historyOf([msg.user("u1", "hi")]);
    await saveHistory(store, "t1", history, sink);
    expect(saved[0]).toBe(history);
    expect(sink.warnings).toEqual([]);
  });

  it("R-REASON-17: a store that declares no capabilities is taken to keep everything (values reach it)", async () => {
    const saved: ReasoningHistory[] = [];
    const store: HistoryStore = { save: async (_t, h) => void saved.push(h), load: async () => undefined };
    const history = historyWithValues();
    await saveHistory(store, "t1", history, { onWarning: () => {} });
    expect(saved[0]).toBe(history);
  });

  it("R-REASON-19: the reference store refuses values it cannot carry instead of dropping them silently", async () => {
    const store = new InMemoryHistoryStore({ encryptedValues: false });
    await expect(store.save("t1", historyWithValues())).rejects.toThrow(TypeError);
    await expect(store.save("t1", historyWithValues())).rejects.toThrow(
      "save it with saveHistory(), which strips them with a VALUE_NOT_STORED warning",
    );
    expect(await store.load("t1")).toBeUndefined();
  });

  it.each([
    ["a role AG-UI 1.0 does not describe", [{ id: "m1", role: "wizard", content: "spell" }], "/messages/0"],
    ["one message twice", [msg.user("u1", "one"), msg.user("u1", "again")], "/messages/1/id"],
  ])(
    "D-HISTORY-IDS R-REASON-17: every store refuses to save what its load would refuse (%s), naming the pointer; what it held stays",
    async (_what, messages, pointer) => {
      const bad = historyOf(messages as ReasoningHistory["messages"]);
      const kept = historyOf([msg.user("u0", "kept")]);
      const strings = new Map<string, string>();
      const stores: HistoryStore[] = [
        new InMemoryHistoryStore(),
        new KeyValueHistoryStore({ get: (k) => strings.get(k), set: (k, v) => void strings.set(k, v) }),
      ];
      for (const store of stores) {
        await store.save("t1", kept);
        const refused = store.save("t1", bad);
        await expect(refused).rejects.toThrow(TypeError);
        await expect(refused).rejects.toThrow(/refused to save a history that load would refuse: /);
        await expect(refused).rejects.toThrow(pointer);
        await expect(refused).rejects.not.toThrow(/spell|again/);
        expect((await store.load("t1"))!.messages).toEqual(kept.messages);
      }
    },
  );

  it.each([
    [
      "a list that is not one",
      { messages: "none", incomplete: [], issuers: [], durations: [] },
      "/messages must be an array",
    ],
    ["a message that is null", { messages: [null], incomplete: [], issuers: [], durations: [] }, "/messages/0"],
    ["not an object", 42, "/ must be an object"],
  ])(
    "R-PROC-4: saveHistory to a store without values refuses %s with a TypeError naming the place, not one from inside",
    async (_what, history, place) => {
      const store = new InMemoryHistoryStore({ encryptedValues: false });
      const saved = saveHistory(store, "t1", history as unknown as ReasoningHistory, { onWarning: () => {} });
      await expect(saved).rejects.toThrow(TypeError);
      await expect(saved).rejects.toThrow(/^agui-reasoning: saveHistory: not a history a store can keep: /);
      await expect(saved).rejects.toThrow(place);
      expect(await store.load("t1")).toBeUndefined();
    },
  );

  it("R-EVT-8: threads are separate, unknown threads load as undefined, and a bad threadId is a TypeError", async () => {
    const store = new InMemoryHistoryStore();
    await saveHistory(store, "t1", historyOf([msg.user("u1", "one")]));
    await saveHistory(store, "t2", historyOf([msg.user("u2", "two")]));
    expect((await store.load("t1"))!.messages).toEqual([msg.user("u1", "one")]);
    expect((await store.load("t2"))!.messages).toEqual([msg.user("u2", "two")]);
    expect(await store.load("t3")).toBeUndefined();
    await expect(saveHistory(store, "", historyOf())).rejects.toThrow("saveHistory needs a non-empty threadId string");
    await expect(store.load(42 as unknown as string)).rejects.toThrow(TypeError);
  });

  it("R-REASON-17: what load returns shares nothing with what was saved (the stored form is text)", async () => {
    const store = new InMemoryHistoryStore();
    const history = historyWithValues();
    await store.save("t1", history);
    (history.messages[1] as { content: string }).content = "changed after save";
    const first = (await store.load("t1"))!;
    (first.messages[1] as { content: string }).content = "changed after load";
    expect((await store.load("t1"))!.messages[1]).toEqual(
      msg.reasoning("m1", "thinking", { encryptedValue: "gAAAA-secret-one" }),
    );
  });

  it("D-ISSUER: stripValues keeps the identity of messages that held no value and empties the issuer records", () => {
    const history = historyWithValues();
    const stripped = stripValues(history);
    expect(stripped.lost).toEqual(["m1", "tc1"]);
    expect(stripped.history.messages[0]).toBe(history.messages[0]);
    expect(stripped.history.messages[1]).not.toBe(history.messages[1]);
    expect(stripped.history.issuers).toEqual([]);
    expect(stripped.history.incomplete).toBe(history.incomplete);
  });
});
