/**
 * D-KEEPER, R-REASON-17, D-ISSUER as a property: whatever a chat UI does to its message list between
 * runs, every value the producer issued goes back with the message or tool call it belongs to,
 * byte-identical, whenever the application sends that message again — and nothing goes back on
 * anything else.
 *
 * A generated session is a list of operations on one thread, each a run of the middleware (the next
 * agent a stand-in answering with a turn of its own ids: reasoning with a value, an assistant message
 * whose tool call has a value, the tool's result, an answer):
 *
 * - `ask`: the application sends its list and a new user message;
 * - `regenerate`: it sends its list without the last turn's answer (kept as a branch it may go back to);
 * - `back`: it puts an earlier branch of the last question back in place of the current one, and asks again;
 * - `edit`: it replaces the last question with another (a new id) and sends that.
 * - `fork`: two tabs (or a double submit) send one new question at once; the two runs' events interleave
 *   and the runs end in a generated order; the application keeps one answer, the other is a branch of
 *   that question it may go back to.
 *
 * - `reload`: the page reopens; a new middleware loads each thread's conversation (`loadHistory`) from
 *   the history and the departed messages saved for it (`onHistory`, `serializeHistory`, `SavedThread`),
 *   and the application keeps its branches (a message tree it persists, as assistant-ui's thread
 *   history adapters do).
 *
 * Each operation is on one of two threads. Each run, the list goes through one of the stores
 * (test/support/lossy-stores.ts, and one that also drops reasoning messages) before the run input is built. The application's own list always keeps
 * the producer's messages as they came (a value the store dropped is the store's loss, restored by
 * the middleware, not a choice of the application). Fewer than KEPT_DEPARTED messages ever leave, so
 * every value can come back. FC_SEED / FC_RUNS (a share of them) come from the environment.
 */
import fc from "fast-check";
import { from, lastValueFrom, Subject, toArray, type Observable } from "rxjs";
import type { Message, RunAgentInput } from "@ag-ui/core";
import {
  parseHistory,
  reasoningMiddleware,
  serializeHistory,
  type ReasoningHistory,
  type ReasoningMiddlewareOptions,
} from "../../src";
import { ev, msg } from "../../src/testing/builders";
import { runInput } from "../support/http-run";
import { dropsToolCallValues, textOnly, type Store } from "../support/lossy-stores";
import * as historyStage from "../../src/history/history-stage";
import { SEED, TOTAL_RUNS } from "./property-run";

const P = "https://agent.example/p";
const RUNS = Math.max(20, Math.round(TOTAL_RUNS / 50));

type Operation = "ask" | "regenerate" | "back" | "edit" | "reload" | "fork";
/** An operation, the store the run input goes through, the thread, and a fork's choices (bits). */
type Step = [Operation, number, number, number];
const STORES: ReadonlyArray<[string, Store]> = [
  ["keeps everything", (messages) => messages.map((m) => ({ ...m }))],
  ["drops tool calls' values", dropsToolCallValues],
  ["keeps text only", textOnly],
  ["shows text only", (messages) => textOnly(messages).filter((m) => m.role !== "reasoning")],
];

/** The producer's turn for run `n`: its messages (with values) and the events that stream them. */
function turn(n: number): { messages: Message[]; events: unknown[] } {
  const [r, a, c, t, x] = [`r${n}`, `a${n}`, `c${n}`, `t${n}`, `x${n}`];
  return {
    messages: [
      msg.reasoning(r, "thinking", { encryptedValue: `P:${r}` }),
      msg.assistant(a, undefined, { toolCalls: [msg.toolCall(c, "f", "{}", { encryptedValue: `P:${c}` })] }),
      msg.tool(t, c, "42"),
      msg.assistant(x, "done"),
    ],
    events: [
      ev.reasoningMessageStart(r),
      ev.reasoningMessageContent(r, "thinking"),
      ev.reasoningMessageEnd(r),
      ev.encryptedValue("message", r, `P:${r}`),
      ev.toolCallStart(c, "f", { parentMessageId: a }),
      ev.toolCallArgs(c, "{}"),
      ev.toolCallEnd(c),
      ev.encryptedValue("tool-call", c, `P:${c}`),
      ev.toolCallResult(t, c, "42"),
      ev.textStart(x),
      ev.textContent(x, "done"),
      ev.textEnd(x),
    ],
  };
}

/** Every value a message or tool call of `messages` carries, as "id=value". */
function valuesIn(messages: readonly Message[]): string[] {
  return messages.flatMap((m) => {
    const own = (m as { encryptedValue?: string }).encryptedValue;
    const calls = m.role === "assistant" ? (m.toolCalls ?? []) : [];
    return [
      ...(own === undefined ? [] : [`${m.id}=${own}`]),
      ...calls.flatMap((c) => {
        const value = (c as { encryptedValue?: string }).encryptedValue;
        return value === undefined ? [] : [`${c.id}=${value}`];
      }),
    ];
  });
}

/** One thread as the application holds it: its list (as the producer gave it), and each question's earlier answers. */
interface AppThread {
  list: Message[];
  readonly branches: Map<string, Message[][]>;
}

/** Runs the session; throws (naming the run) at the first request that misses or misplaces a value. */
async function session(steps: ReadonlyArray<Step>): Promise<void> {
  // Each thread's saved history and departed messages, as an application saves them: serialized, from onHistory.
  const saved = new Map<string, { history: string; departed: string }>();
  const made = (loadHistory?: ReasoningMiddlewareOptions["loadHistory"]) =>
    reasoningMiddleware({
      producer: P,
      onWarning: () => {},
      onHistory: (history, { threadId, departed }) =>
        saved.set(threadId, { history: serializeHistory(history), departed: serializeHistory(departed) }),
      ...(loadHistory === undefined ? {} : { loadHistory }),
    });
  let middleware = made();
  let reloads = 0;
  const threads = new Map<string, AppThread>();
  let question = 0;
  let runs = 0;

  for (const [operation, storeIndex, threadIndex, choices] of steps) {
    const threadId = `thread-${threadIndex}`;
    if (operation === "reload") {
      // The page reopens: each thread's conversation loads from what was saved for it
      // (serializeHistory; a promise on every other reload, as an IndexedDB store gives); the
      // application's own lists and branches are as they were.
      const async = ++reloads % 2 === 0;
      middleware = made((id) => {
        const text = saved.get(id);
        const thread =
          text === undefined
            ? undefined
            : { history: parseHistory(text.history), departed: parseHistory(text.departed) };
        return async ? Promise.resolve(thread) : thread;
      });
      continue;
    }
    const thread = threads.get(threadId) ?? { list: [], branches: new Map<string, Message[][]>() };
    threads.set(threadId, thread);
    const { list, branches } = thread;
    const q = list.map((m) => m.role).lastIndexOf("user");
    const asked = q < 0 ? "" : list[q]!.id;
    // The last question's answer now, and the ones it had before (a regenerate keeps them).
    const current = list.slice(q + 1);
    const earlier = branches.get(asked) ?? [];
    const [storeName, store] = STORES[storeIndex]!;
    if (operation === "fork") {
      const forkedQuestion = msg.user(`u${++question}`, "q");
      thread.list = [...list, forkedQuestion];
      const forked = await fork(threadId, store(thread.list), choices);
      for (const received of forked.received) {
        const where = `a forked run (${threadId}, a store that ${storeName})`;
        expect({ where, values: valuesIn(received).sort() }).toEqual({ where, values: valuesIn(thread.list).sort() });
      }
      thread.list = [...thread.list, ...forked.kept];
      branches.set(forkedQuestion.id, [forked.other]);
      continue;
    }
    if (operation === "ask" || q < 0 || (operation === "back" && earlier.length === 0))
      thread.list = [...list, msg.user(`u${++question}`, "q")];
    else if (operation === "regenerate") {
      branches.set(asked, [...earlier, current]);
      thread.list = list.slice(0, q + 1);
    } else if (operation === "edit") thread.list = [...list.slice(0, q), msg.user(`u${++question}`, "edited")];
    else {
      branches.set(asked, [...earlier.slice(1), current]);
      thread.list = [...list.slice(0, q + 1), ...earlier[0]!, msg.user(`u${++question}`, "q")];
    }
    const n = ++runs;
    let received: Message[] = [];
    const answer = turn(n);
    const next = {
      run: (input: RunAgentInput) => {
        received = input.messages;
        return from([
          ev.runStarted(`run-${n}`, { threadId }),
          ...answer.events,
          ev.runFinished(`run-${n}`, { threadId }),
        ]);
      },
    };
    await lastValueFrom(
      (
        middleware(runInput({ threadId, runId: `run-${n}`, messages: store(thread.list) }), next) as Observable<unknown>
      ).pipe(toArray()),
    );
    // What went back: each value the application's list holds (reasoning a store leaves out is put back
    // before its answer), on its own message or tool call, and no other.
    const where = `run ${n} (${threadId}: ${operation}, a store that ${storeName})`;
    expect({ where, values: valuesIn(received).sort() }).toEqual({ where, values: valuesIn(thread.list).sort() });
    thread.list = [...thread.list, ...answer.messages];
  }

  /**
   * Two runs of `threadId` at once, each sent `messages` and answering with a turn of its own: their
   * events interleave and they end as `choices`' bits say, and the application keeps one of the answers.
   */
  async function fork(threadId: string, messages: Message[], choices: number) {
    const answers = [turn(++runs), turn(++runs)] as const;
    const sources = [new Subject<unknown>(), new Subject<unknown>()] as const;
    const received: Message[][] = [[], []];
    const ended = Promise.all(
      ([0, 1] as const).map((i) =>
        lastValueFrom(
          (
            middleware(runInput({ threadId, runId: `fork-${i}`, messages }), {
              run: (input: RunAgentInput) => {
                received[i] = input.messages;
                return sources[i];
              },
            }) as Observable<unknown>
          ).pipe(toArray()),
        ),
      ),
    );
    // Both runs subscribed to their sources (after loadHistory's promise, if it gave one).
    await new Promise((resolve) => setTimeout(resolve, 0));
    const streams = answers.map((answer, i) => [ev.runStarted(`fork-${i}`, { threadId }), ...answer.events]);
    let bit = 0;
    while (streams[0]!.length + streams[1]!.length > 0) {
      const i = streams[1]!.length === 0 || (streams[0]!.length > 0 && ((choices >> (bit++ % 28)) & 1) === 0) ? 0 : 1;
      sources[i].next(streams[i]!.shift());
    }
    const first = (choices >> 28) & 1;
    for (const i of [first, 1 - first] as const) {
      sources[i]!.next(ev.runFinished(`fork-${i}`, { threadId }));
      sources[i]!.complete();
    }
    await ended;
    const kept = (choices >> 29) & 1;
    return { received, kept: answers[kept]!.messages, other: answers[1 - kept]!.messages };
  }
}

describe(`D-KEEPER property: chat-UI sessions (FC_SEED=${SEED}, ${RUNS} runs)`, () => {
  // Each run's seed the middleware builds (continueConversation) goes to its pipeline unchecked and
  // uncopied (ownSeed): it must be exactly what checking and copying it would give (D-NO-ALIAS, D-PATHS).
  const seeds: ReasoningHistory[] = [];
  const ownSeed = historyStage.ownSeed;
  beforeEach(() => {
    seeds.length = 0;
    jest.spyOn(historyStage, "ownSeed").mockImplementation((history) => {
      seeds.push(history);
      return ownSeed(history);
    });
  });
  afterEach(() => {
    jest.restoreAllMocks();
  });

  it("D-KEEPER R-REASON-17 every value the producer issued goes back with its message or tool call whenever the application sends it, whatever the store and the branches", async () => {
    const step = fc.tuple(
      fc.constantFrom<Operation>("ask", "ask", "regenerate", "back", "edit", "reload", "fork"),
      fc.nat({ max: STORES.length - 1 }),
      fc.nat({ max: 1 }),
      fc.nat({ max: 2 ** 30 - 1 }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 14 }), async (steps) => {
        seeds.length = 0;
        await session(steps);
        // A seed the middleware builds is one checking and copying would give unchanged.
        for (const seed of seeds) expect(historyStage.seedOf({ initialHistory: seed, producer: P })).toEqual(seed);
        const runsOf = { reload: 0, fork: 2 } as Partial<Record<Operation, number>>;
        expect(seeds).toHaveLength(steps.reduce((n, [operation]) => n + (runsOf[operation] ?? 1), 0));
      }),
      { seed: SEED, numRuns: RUNS },
    );
  });
});
