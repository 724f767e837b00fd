import { performance } from "node:perf_hooks";
import { from, map, type Observable } from "rxjs";
import type { Message } from "@ag-ui/core";
import { Conversation } from "../src/history/conversation";
import { reasoningPipeline } from "../src";
import { buildStream } from "./streams";

/**
 * What the `history$` contract alone costs per event, beside the floor, in one process (issue 13, M1).
 *
 * The facade publishes a new immutable history after every event that changes it (every delta
 * does), and a history's `messages` (and, while the issuer records changed since they were last
 * read, `issuers`) is an own, enumerable accessor that builds the array on first read: a plain
 * array per event would copy the whole conversation per event. Each such accessor is one call
 * into the engine's runtime per published history (docs/performance.md, "T5"). This script
 * measures that price alone: the floor's source and five `map(identity)`, plus one map that does
 * only what every delta must do to the history — replace one message in a conversation of
 * `MESSAGES` messages (structural sharing) and publish the new version's history — with the issuer
 * records unread (two accessors per history) or read (one), with the issuer records and the
 * durations unread (three: what the mixed conversation's histories hold since D-DURATION put
 * `durations` in every history, one record per reasoning message), and the new version alone,
 * unpublished. The facade over the same stream is measured alongside.
 *
 *   npm run bench:contract -- [runs=4000] [samples=15]
 *
 * That script bundles this file with src/ (the history's internals are not in the package's API;
 * through tsx every call between two source files would cost a module getter) and runs the bundle.
 */

const runs = Number(process.argv[2] ?? 4_000);
const samples = Number(process.argv[3] ?? 15);
/** The history's size: about what the mixed conversation holds at the end of `runs` runs. */
const MESSAGES = runs * 3;

const stream = buildStream({ kind: "conversation", shape: "mixed", runs });
const events = stream.events;
const identity = <T>(x: T): T => x;

function seedConversation(): { conversation: Conversation; position: number } {
  const messages: Message[] = Array.from({ length: MESSAGES }, (_, i) => ({
    id: `m${i}`,
    role: "assistant",
    content: "x",
  }));
  // One issuer record per message: a long list, shown through an accessor while a new record is unread.
  const issuers = messages.map((m) => ({ subtype: "message" as const, entityId: m.id, issuer: "bench://agent" }));
  // One duration record per run's reasoning message: shown through an accessor while a new record is unread.
  const durations = Array.from({ length: runs }, (_, i) => ({
    kind: "message" as const,
    id: `r${i}`,
    startedAt: i,
    startObserved: false,
    endedAt: i + 1,
    endObserved: false,
  }));
  const conversation = Conversation.start({ messages, incomplete: [], issuers, durations }, undefined);
  return { conversation, position: MESSAGES - 1 };
}

type Mode = "floor" | "new version" | "one accessor" | "two accessors" | "three accessors" | "facade";

/** One pass over the stream in `mode`; resolves with its wall time in ms. */
function pass(mode: Mode): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    // The latest value, kept as a subscriber keeps it.
    let last: unknown;
    const done = {
      next: (v: unknown) => (last = v),
      error: reject,
      complete: () => resolve(last === undefined ? NaN : performance.now() - started),
    };
    if (mode === "facade") {
      const p = reasoningPipeline(from(events), { producer: "bench://agent" });
      p.history$.subscribe((h) => (last = h));
      p.warnings$.subscribe(() => {});
      p.events$.subscribe(done);
      return;
    }
    const base: Observable<Record<string, unknown>> = from(events).pipe(
      map(identity),
      map(identity),
      map(identity),
      map(identity),
      map(identity),
    );
    if (mode === "floor") {
      base.subscribe(done);
      return;
    }
    const seeded = seedConversation();
    let conversation = seeded.conversation;
    const position = seeded.position;
    // Unread issuer records: the published histories show `issuers` through an accessor too.
    if (mode === "two accessors" || mode === "three accessors") {
      const { issuers } = conversation.parts;
      conversation = conversation.with({
        issuers: issuers.put("m0", { ...issuers.at(0)!, issuer: "b" }),
      });
    }
    // Unread durations too: a third accessor per history.
    if (mode === "three accessors") {
      const { durations } = conversation.parts;
      conversation = conversation.with({ durations: durations.put("r0", { ...durations.at(0)!, endedAt: 2 }) });
    }
    const id = `m${position}`;
    base
      .pipe(
        map((event) => {
          // A new message object per event, as each delta makes (its content: any string of the event).
          conversation = conversation.replaceAt(position, { id, role: "assistant", content: event.type as string });
          return mode === "new version" ? conversation : conversation.history;
        }),
      )
      .subscribe(done);
  });
}

async function main(): Promise<void> {
  const modes: Mode[] = ["floor", "new version", "one accessor", "two accessors", "three accessors", "facade"];
  const times = new Map<Mode, number[]>(modes.map((m) => [m, []]));
  for (let i = 0; i < 3; i++) for (const m of modes) await pass(m);
  for (let s = 0; s < samples; s++) for (const m of modes) times.get(m)!.push(await pass(m));
  const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
  const floor = median(times.get("floor")!);
  process.stdout.write(
    `mixed conversation, ${runs} runs (${events.length} events), history of ${MESSAGES} messages; ` +
      `median of ${samples}, interleaved\n\n| pass | median | × floor | ns per event |\n| --- | --- | --- | --- |\n`,
  );
  for (const m of modes) {
    const t = median(times.get(m)!);
    process.stdout.write(
      `| ${m} | ${t.toFixed(1)} ms | ${(t / floor).toFixed(2)}× | ${((t * 1e6) / events.length).toFixed(0)} |\n`,
    );
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exitCode = 1;
});
