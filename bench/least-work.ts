import { from, map } from "rxjs";
import { reasoningPipeline } from "../src";
import { drain, facade, floor, median } from "./paced-cells";
import { buildStream, type ConversationShape } from "./streams";

/**
 * What P1's conversations cost a reducer that does only the least any implementation must do
 * (issue 23: is "≤ 4× the floor" a matter of this package's design, or of the work itself?), beside
 * the floor and the paced facade, in one process:
 *
 *   npm run bench:least-work -- [runs=4000] [samples=9]
 *
 * The reducer is one `map` over the floor's source. Per event it reads the fields it uses (a string
 * checked as one), and it keeps the history in plain mutable objects: messages, tool calls and tool
 * results created, deltas pushed and joined at their END, values attached to their target, nested
 * activity and state values copied (D-NO-ALIAS), and the maps of every id of the conversation that the
 * rules need (the messages and tool calls by id, D-ROLE-CONFLICT's known roles, D-ISSUER's issuers,
 * D-DURATION's start times read from a clock). It leaves out everything else the package does:
 * span and run verification beyond a flag, the chunk close rules, schema checks, warnings, the
 * `incomplete` list, and any published version (a run's end only counts one). So it is a lower
 * bound, not a design: what an implementation of the spec and our decisions cannot go below.
 */

const runs = Number(process.argv[2] ?? 4_000);
const samples = Number(process.argv[3] ?? 9);

interface Call {
  id: string;
  name: string;
  args: string;
  parts?: string[];
  value?: string;
}
interface Message {
  id: string;
  role: string;
  content: unknown;
  parts?: string[];
  toolCalls?: Call[];
  value?: string;
}

function leastWork(events: readonly Record<string, unknown>[]): Promise<number> {
  const messages: Message[] = [];
  const messageById = new Map<string, Message>();
  const callById = new Map<string, Call>();
  const roles = new Map<string, string>();
  const issuers = new Map<string, string>();
  const started = new Map<string, number>();
  // The open messages and tool calls of the run, and the chunked message deltas go to.
  let open = new Map<string, Message | Call>();
  let chunked: Message | undefined;
  let inRun = false;
  let published = 0;

  const text = (event: Record<string, unknown>, key: string): string => {
    const value = event[key];
    if (typeof value !== "string") throw new Error(`${key} is not a string`);
    return value;
  };
  const start = (id: string, role: string, content: unknown = ""): Message => {
    if (messageById.has(id) || roles.get(id) !== undefined) throw new Error("duplicate id");
    const message: Message = { id, role, content, parts: [] };
    messages.push(message);
    messageById.set(id, message);
    roles.set(id, role);
    open.set(id, message);
    if (role === "reasoning") started.set(id, performance.now());
    return message;
  };
  const end = (id: string): void => {
    const item = open.get(id);
    if (item === undefined) throw new Error("no open item");
    if ("role" in item) item.content = item.parts!.join("");
    else item.args = item.parts!.join("");
    item.parts = undefined;
    open.delete(id);
  };
  const append = (id: string, delta: string): void => {
    const item = open.get(id);
    if (item === undefined) throw new Error("no open item");
    item.parts!.push(delta);
  };

  const step = (event: Record<string, unknown>): Record<string, unknown> => {
    switch (text(event, "type")) {
      case "RUN_STARTED":
        text(event, "threadId");
        text(event, "runId");
        inRun = true;
        break;
      case "RUN_FINISHED":
        if (chunked !== undefined) end(chunked.id);
        chunked = undefined;
        open = new Map();
        inRun = false;
        published++;
        break;
      case "STEP_STARTED":
      case "STEP_FINISHED":
        text(event, "stepName");
        break;
      case "REASONING_START":
        text(event, "messageId");
        break;
      case "REASONING_END":
        text(event, "messageId");
        if (chunked !== undefined) end(chunked.id);
        chunked = undefined;
        break;
      case "REASONING_MESSAGE_START":
        start(text(event, "messageId"), "reasoning");
        break;
      case "TEXT_MESSAGE_START":
        start(text(event, "messageId"), text(event, "role"));
        break;
      case "REASONING_MESSAGE_CHUNK": {
        const id = event.messageId;
        if (typeof id === "string" && id !== chunked?.id) chunked = start(id, "reasoning");
        if (chunked === undefined) throw new Error("no open chunk");
        append(chunked.id, text(event, "delta"));
        break;
      }
      case "REASONING_MESSAGE_CONTENT":
      case "TEXT_MESSAGE_CONTENT":
        append(text(event, "messageId"), text(event, "delta"));
        break;
      case "REASONING_MESSAGE_END":
      case "TEXT_MESSAGE_END":
        end(text(event, "messageId"));
        break;
      case "TOOL_CALL_START": {
        const id = text(event, "toolCallId");
        if (callById.has(id)) throw new Error("duplicate tool call");
        const call: Call = { id, name: text(event, "toolCallName"), args: "", parts: [] };
        const holder = messageById.get(text(event, "parentMessageId"));
        if (holder === undefined) throw new Error("no parent");
        (holder.toolCalls ??= []).push(call);
        callById.set(id, call);
        open.set(id, call);
        break;
      }
      case "TOOL_CALL_ARGS":
        append(text(event, "toolCallId"), text(event, "delta"));
        break;
      case "TOOL_CALL_END":
        end(text(event, "toolCallId"));
        break;
      case "TOOL_CALL_RESULT":
        if (!callById.has(text(event, "toolCallId"))) throw new Error("no tool call");
        start(text(event, "messageId"), "tool", text(event, "content")).parts = undefined;
        open.delete(event.messageId as string);
        break;
      case "REASONING_ENCRYPTED_VALUE": {
        const id = text(event, "entityId");
        const value = text(event, "encryptedValue");
        const target = text(event, "subtype") === "message" ? messageById.get(id) : callById.get(id);
        if (target !== undefined) {
          target.value = value;
          issuers.set(id, "bench://agent");
        }
        break;
      }
      case "ACTIVITY_SNAPSHOT":
        text(event, "activityType");
        start(text(event, "messageId"), "activity", copy(event.content)).parts = undefined;
        open.delete(event.messageId as string);
        break;
      case "ACTIVITY_DELTA": {
        const activity = messageById.get(text(event, "messageId"));
        if (activity === undefined) throw new Error("no activity");
        copy(event.patch);
        break;
      }
      case "STATE_SNAPSHOT":
        copy(event.snapshot);
        break;
      default:
        throw new Error("an event type the benchmark's conversations do not have");
    }
    return event;
  };
  return drain(from(events).pipe(map(step))).then((count) => {
    if (inRun || published !== runs || messages.length === 0) throw new Error("the reducer lost the conversation");
    return count;
  });
}

/** A plain copy of a JSON value. */
function copy(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(copy);
  if (value === null || typeof value !== "object") return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) out[key] = copy((value as Record<string, unknown>)[key]);
  return out;
}

async function main(): Promise<void> {
  const rows = ["| shape | floor | least work | × floor | paced facade | × floor | paced ÷ least work |"];
  rows.push("| --- | --- | --- | --- | --- | --- | --- |");
  for (const shape of ["mixed", "parallel"] as ConversationShape[]) {
    const events = buildStream({ kind: "conversation", shape, runs }).events;
    const cells = {
      floor: () => floor(events),
      least: () => leastWork(events),
      paced: () => facade(reasoningPipeline, events, 16),
    };
    const times: Record<string, number[]> = { floor: [], least: [], paced: [] };
    for (let i = 0; i < samples; i++) {
      for (const [name, run] of Object.entries(cells)) {
        // As bench/paced.ts times P1: each sample from a collected heap.
        (globalThis as { gc?: () => void }).gc?.();
        const t0 = performance.now();
        await run();
        times[name]!.push(performance.now() - t0);
      }
    }
    const [f, l, p] = [median(times.floor!), median(times.least!), median(times.paced!)];
    rows.push(
      `| ${shape} | ${f.toFixed(1)} ms | ${l.toFixed(1)} ms | ${(l / f).toFixed(2)}× | ${p.toFixed(1)} ms | ${(p / f).toFixed(2)}× | ${(p / l).toFixed(2)}× |`,
    );
  }
  process.stdout.write(`${runs} runs, median of ${samples}, one process\n\n${rows.join("\n")}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
