/**
 * KeyValueHistoryStore against a real embedded database: SQLite (sql.js, WebAssembly — no native build
 * step) with a `histories(thread_id, record)` table, as a service would keep threads in SQL. Save,
 * close the database (its file written), reopen it from the file, load, continue the conversation,
 * save again. Corrupt rows fail with a clear error and never give half a history.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import initSqlJs, { type Database, type SqlJsStatic } from "sql.js";
import { toRunInputMessages, type ReasoningHistory } from "../../src";
import { saveHistory } from "../../src/storage/history-store";
import { serializeHistory } from "../../src/storage/history-format";
import { KeyValueHistoryStore, type StringStore } from "../../src/storage";
import { ev, msg } from "../../src/testing/builders";
import { collectWarnings } from "../../src/testing/marbles";
import { runPipeline, TEST_PRODUCER } from "../../src/testing/run-pipeline";

const REASONING_VALUE = "gAAAA-opaque+/=\u00e9\u{1F512}";
const TOOL_VALUE = "rs_tool-value";

let SQL: SqlJsStatic;
let dir: string;
let file: string;

beforeAll(async () => {
  SQL = await initSqlJs();
  dir = mkdtempSync(join(tmpdir(), "agui-reasoning-sqlite-"));
  file = join(dir, "threads.sqlite");
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A service's table of threads, and the two statements the adapter needs. */
function open(): Database {
  const db = new SQL.Database(readFileOrNothing(file));
  db.run("CREATE TABLE IF NOT EXISTS histories (thread_id TEXT PRIMARY KEY, record TEXT NOT NULL)");
  return db;
}
function readFileOrNothing(path: string): Uint8Array | undefined {
  try {
    return readFileSync(path);
  } catch {
    return undefined;
  }
}
/** Closing writes the database file (sql.js keeps it in memory until exported). */
function close(db: Database): void {
  writeFileSync(file, db.export());
  db.close();
}
function sqlStrings(db: Database): StringStore {
  return {
    get(key) {
      const row = db.exec("SELECT record FROM histories WHERE thread_id = ?", [key])[0]?.values[0];
      return row?.[0] as string | undefined;
    },
    set(key, value) {
      db.run(
        "INSERT INTO histories (thread_id, record) VALUES (?, ?) ON CONFLICT(thread_id) DO UPDATE SET record = excluded.record",
        [key, value],
      );
    },
  };
}

/** Turn 1: reasoning with a value on its message and on a tool call, a message left open by a RUN_ERROR. */
function firstTurn(): ReasoningHistory {
  const run = runPipeline([
    ev.runStarted("r1"),
    ev.reasoningStart("s1"),
    ev.reasoningChunk("m1", "Let me think", { metadata: { provider: { step: 1 } } }),
    ev.reasoningEnd("s1"),
    ev.encryptedValue("message", "m1", REASONING_VALUE),
    ev.textChunk("a1", "Calling"),
    ev.toolCallStart("tc1", "search", { parentMessageId: "a1" }),
    ev.toolCallArgs("tc1", '{"q":"x"}'),
    ev.toolCallEnd("tc1"),
    ev.encryptedValue("tool-call", "tc1", TOOL_VALUE),
    ev.toolCallResult("t1", "tc1", "found"),
    ev.reasoningMessageStart("m2"),
    ev.reasoningMessageContent("m2", "cut"),
    ev.runError("boom"),
  ]);
  expect(run.error).toBeUndefined();
  return run.history;
}

describe("KeyValueHistoryStore over SQLite (sql.js): a real embedded database", () => {
  it("R-REASON-17 D-ISSUER: save, close, reopen, load gives the history exactly; the conversation continues and is saved again over the same row", async () => {
    rmSync(file, { force: true });
    const first = firstTurn();
    expect(first.issuers).toHaveLength(2);
    expect(first.incomplete).toEqual([{ kind: "message", id: "m2", reason: "abandoned" }]);

    let db = open();
    await new KeyValueHistoryStore(sqlStrings(db)).save("thread-1", first);
    close(db);

    db = open();
    const store = new KeyValueHistoryStore(sqlStrings(db));
    const loaded = await store.load("thread-1");
    expect(loaded).toStrictEqual(first);
    expect(serializeHistory(loaded!)).toBe(serializeHistory(first));
    // D-DURATION: the durations beside the messages come back too: m1 and its span ended, m2 (cut by RUN_ERROR) has no end.
    const duration = (kind: "message" | "span", id: string) =>
      loaded!.durations.find((d) => d.kind === kind && d.id === id);
    expect(duration("message", "m1")).toMatchObject({ endedAt: expect.any(Number) });
    expect(duration("span", "s1")).toMatchObject({ endedAt: expect.any(Number) });
    expect(duration("message", "m2")).toMatchObject({ startedAt: expect.any(Number) });
    expect(duration("message", "m2")!.endedAt).toBeUndefined();
    expect(await store.load("thread-2")).toBeUndefined();

    // The next turn starts from what was loaded; the values go back to their issuer byte for byte.
    const asked: ReasoningHistory = { ...loaded!, messages: [...loaded!.messages, msg.user("u2", "and then?")] };
    const input = toRunInputMessages(asked, { producer: TEST_PRODUCER, onWarning: () => {} });
    expect(input.find((m) => m.id === "m1")).toMatchObject({ encryptedValue: REASONING_VALUE });
    const second = runPipeline(
      [
        ev.runStarted("r2"),
        ev.textChunk("a2", "Done"),
        ev.encryptedValue("message", "a2", "v-a2"),
        ev.runFinished("r2"),
      ],
      { initialHistory: asked },
    );
    expect(second.error).toBeUndefined();
    await store.save("thread-1", second.history);
    close(db);

    db = open();
    const again = await new KeyValueHistoryStore(sqlStrings(db)).load("thread-1");
    expect(again).toStrictEqual(second.history);
    expect(again!.messages.map((m) => m.id)).toEqual(["m1", "a1", "t1", "m2", "u2", "a2"]);
    expect(again!.issuers.map((r) => r.entityId)).toEqual(["m1", "tc1", "a2"]);
    expect(db.exec("SELECT thread_id FROM histories")[0]!.values).toEqual([["agui-reasoning/history/thread-1"]]);
    db.close();
  });

  it.each([
    ["cut in half", (text: string) => text.slice(0, text.length / 2), /is corrupt: \/ is not valid JSON text/],
    [
      "a message the AG-UI schema rejects after a valid one",
      (text: string) => text.replace('"role":"assistant"', '"role":42'),
      /is corrupt: \/messages\/1 is not an AG-UI 1\.0 message/,
    ],
    [
      "a newer format version",
      (text: string) => text.replace(/"version":\d+/, '"version":99'),
      /is corrupt: \/version is 99, newer than this package reads/,
    ],
  ])(
    "a corrupt record (%s) is a TypeError naming the store, the thread and the pointer; no half history, no content",
    async (_, corrupt, expected) => {
      const db = open();
      const store = new KeyValueHistoryStore(sqlStrings(db), { keyPrefix: "" });
      await store.save("t-corrupt", firstTurn());
      const [[text]] = db.exec("SELECT record FROM histories WHERE thread_id = 't-corrupt'")[0]!.values as [[string]];
      db.run("UPDATE histories SET record = ? WHERE thread_id = 't-corrupt'", [corrupt(text)]);
      const failure = await store.load("t-corrupt").then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(failure).toBeInstanceOf(TypeError);
      const message = (failure as Error).message;
      expect(message).toMatch(/^agui-reasoning: KeyValueHistoryStore: the record of thread "t-corrupt" is corrupt: /);
      expect(message).toMatch(expected);
      for (const content of ["Let me think", REASONING_VALUE, TOOL_VALUE]) expect(message).not.toContain(content);
      db.close();
    },
  );

  it("a record that is not text (a BLOB in the column) is corrupt, named as such", async () => {
    const db = open();
    db.run("INSERT OR REPLACE INTO histories VALUES ('agui-reasoning/history/t-blob', X'7B7D')");
    await expect(new KeyValueHistoryStore(sqlStrings(db)).load("t-blob")).rejects.toThrow(
      'agui-reasoning: KeyValueHistoryStore: the record of thread "t-blob" is corrupt: it is object, not the text serializeHistory writes',
    );
    db.close();
  });
});

describe("KeyValueHistoryStore over any string store", () => {
  /** An async store whose `get` gives `null` for a missing key, as Redis clients do. */
  function redisLike(): StringStore & { data: Map<string, string> } {
    const data = new Map<string, string>();
    return {
      data,
      get: async (key) => data.get(key) ?? null,
      set: async (key, value) => {
        data.set(key, value);
        return "OK";
      },
    };
  }

  it("R-REASON-17: an async store (null for a missing key) keeps exactly serializeHistory's text under prefix + thread id", async () => {
    const strings = redisLike();
    const store = new KeyValueHistoryStore(strings, { keyPrefix: "chat:" });
    const history = firstTurn();
    expect(await store.load("t1")).toBeUndefined();
    await store.save("t1", history);
    expect([...strings.data]).toEqual([["chat:t1", serializeHistory(history)]]);
    expect(store.keyOf("t1")).toBe("chat:t1");
    expect(await store.load("t1")).toStrictEqual(history);
  });

  it("R-REASON-19: a store declared without values refuses them on save; saveHistory strips them with one VALUE_NOT_STORED", async () => {
    const strings = redisLike();
    const store = new KeyValueHistoryStore(strings, { encryptedValues: false });
    await expect(store.save("t1", firstTurn())).rejects.toThrow(/cannot carry encrypted values/);
    expect(strings.data.size).toBe(0);
    const sink = collectWarnings();
    await saveHistory(store, "t1", firstTurn(), sink);
    expect(sink.warnings.map((w) => [w.code, w.ids])).toEqual([["VALUE_NOT_STORED", ["m1", "tc1"]]]);
    const loaded = await store.load("t1");
    expect(loaded!.issuers).toEqual([]);
    expect(JSON.stringify(loaded)).not.toContain(REASONING_VALUE);
  });

  it("R-REASON-17: saves of one thread are written in call order, so a slow earlier write never lands over a later one; a failed one does not stop the next", async () => {
    const data = new Map<string, string>();
    const pending: { value: string; done: (failed?: boolean) => void }[] = [];
    // A pool of connections: each set completes when the test says, in any order it likes.
    const strings: StringStore = {
      get: (key) => data.get(key),
      set: (key, value) =>
        new Promise<void>((resolve, reject) =>
          pending.push({
            value,
            done: (failed) => {
              if (failed) return reject(new Error("connection reset"));
              data.set(key, value);
              resolve();
            },
          }),
        ),
    };
    const store = new KeyValueHistoryStore(strings);
    const first = firstTurn();
    const second = { ...first, messages: [...first.messages, msg.user("u2", "again")] };
    const third = { ...second, messages: [...second.messages, msg.user("u3", "and again")] };
    const saves = [store.save("t1", first), store.save("t1", second), store.save("t1", third)];
    const settled = Promise.allSettled(saves);
    await new Promise((resolve) => setImmediate(resolve));
    expect(pending).toHaveLength(1);
    pending[0]!.done(true);
    await new Promise((resolve) => setImmediate(resolve));
    expect(pending.map((p) => p.value)).toEqual([first, second].map(serializeHistory));
    pending[1]!.done();
    await new Promise((resolve) => setImmediate(resolve));
    pending[2]!.done();
    expect((await settled).map((s) => s.status)).toEqual(["rejected", "fulfilled", "fulfilled"]);
    expect(await store.load("t1")).toStrictEqual(third);
  });

  it("D-PATHS R-REASON-17: a load sees every save of its thread called before it, finished or not, as InMemoryHistoryStore's does; a failed one leaves what was there", async () => {
    const first = firstTurn();
    const second = { ...first, messages: [...first.messages, msg.user("u2", "again")] };
    const data = new Map<string, string>();
    const later: (() => void)[] = [];
    const stores: [string, StringStore][] = [
      ["synchronous", { get: (key) => data.get(key), set: (key, value) => void data.set(key, value) }],
      [
        "slow",
        {
          get: async (key) => data.get(key),
          set: (key, value) => new Promise<void>((resolve) => later.push(() => resolve(void data.set(key, value)))),
        },
      ],
    ];
    for (const [label, strings] of stores) {
      data.clear();
      const store = new KeyValueHistoryStore(strings);
      // The slow store's writes complete once the test lets them.
      const completeWrites = async (): Promise<void> => {
        await new Promise((resolve) => setImmediate(resolve));
        for (const write of later.splice(0)) write();
      };
      const saved = store.save("t1", first);
      await completeWrites();
      await saved;
      // Fire and forget (a UI saving each published history), then read back in the same session.
      void store.save("t1", second);
      const loading = store.load("t1");
      await completeWrites();
      expect({ label, loaded: await loading }).toStrictEqual({ label, loaded: second });
    }
    const failing = new KeyValueHistoryStore({
      get: (key) => data.get(key),
      set: () => Promise.reject(new Error("connection reset")),
    });
    const failed = failing.save("t1", first);
    await expect(failing.load("t1")).resolves.toStrictEqual(second);
    await expect(failed).rejects.toThrow("connection reset");
  });

  it("refuses a store without get/set and an empty thread id with a clear TypeError", async () => {
    expect(() => new KeyValueHistoryStore({} as StringStore)).toThrow(
      "agui-reasoning: KeyValueHistoryStore needs a store with get(key) and set(key, value) functions",
    );
    await expect(new KeyValueHistoryStore(redisLike()).load("")).rejects.toThrow(
      "agui-reasoning: KeyValueHistoryStore needs a non-empty threadId string",
    );
  });
});
