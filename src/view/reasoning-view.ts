import type { Message } from "@ag-ui/core";
import type { ReasoningDuration, ReasoningHistory } from "../history/types";
import { checkHistory, optionsOf, readAgain } from "../core/arguments";
import { KindMap } from "../history/message-key";

/**
 * What a chat UI shows of the reasoning in a history: per assistant turn, its reasoning blocks in
 * visual groups. A display selector only: it reads the history and changes nothing, so what goes back
 * (`toRunInputMessages`) keeps every block, with its own value, in its own order.
 */
export interface ReasoningView {
  readonly turns: readonly TurnView[];
}

/** One assistant turn: the messages between two user (or system/developer) messages. */
export interface TurnView {
  /**
   * The id of the turn's first message (stable while the turn grows), unique in the view: a turn whose
   * first message's id an earlier turn's has gets `#2`, `#3`, ….
   */
  readonly id: string;
  /** The turn's messages, as the history holds them (shared, not copied). */
  readonly messages: readonly Message[];
  /** Its reasoning, grouped as UIs show it. */
  readonly groups: readonly ReasoningGroup[];
}

/**
 * Reasoning shown together: consecutive reasoning messages of one agent, also when tool calls, tool
 * results, activity or another agent's messages come between them; an assistant message with text ends
 * its own agent's group (a subagent's answer does not end its parent's thinking, R-SUB-2).
 */
export interface ReasoningGroup {
  readonly blocks: readonly ReasoningBlock[];
  /** The subagent invocation whose reasoning this is; absent for the parent agent (R-SUB-1). */
  readonly subagentRunId?: string;
  /** Whether a block of the group is still streaming. */
  readonly streaming: boolean;
  /**
   * From the first block's start to the latest end, once every block ended (D-DURATION); none when
   * a block has none.
   */
  readonly durationMs: number | undefined;
}

/** One reasoning message as shown. */
export interface ReasoningBlock {
  /** The reasoning message's id. */
  readonly id: string;
  /** Its text ("" for a redacted block). */
  readonly text: string;
  /** The legacy `THINKING_START` title of its span (D-THINK-TITLE), else undefined. */
  readonly title: string | undefined;
  /**
   * How long it took, once ended: `endedAt − startedAt` (D-DURATION); none when that is negative
   * (timestamps are informative, R-EVT-3: a producer's clock behind the one that dated the other end).
   */
  readonly durationMs: number | undefined;
  /** Its duration record (start, end, whether observed), if the history has one. */
  readonly timing: ReasoningDuration | undefined;
  /** Still open in a running run (never with `running: false`). */
  readonly streaming: boolean;
  /** The provider sent a value and no text ("reasoning hidden by the provider"). */
  readonly redacted: boolean;
}

export interface ReasoningViewOptions {
  /**
   * Whether a run may still be streaming into `history` (default `true`). Give `false` for a history no
   * pipeline is running for — loaded from a store, before the conversation's next run — so that an item
   * saved while it was open (the tab closed mid-answer) shows as interrupted, not as "Thinking…" forever.
   * A chat UI can pass its own flag: `{ running: agent.isRunning }`.
   */
  readonly running?: boolean;
}

/**
 * The display view of `history` (a pure selector). Pass the view it gave for an earlier history of the
 * same conversation as `previous`: every turn whose messages, durations and open state are unchanged
 * is that view's `TurnView` object itself (`===`), so a memoized component re-renders only the turn
 * that changed, and only changed turns are rebuilt. The view itself is `previous` when no turn changed.
 * A `previous` this function did not return (a copy, anything else) is no earlier view: all is built anew.
 */
export function reasoningView(
  history: ReasoningHistory,
  previous?: ReasoningView,
  options?: ReasoningViewOptions,
): ReasoningView {
  // The check's copies of its lists: a proxy may answer a second read of a list's length otherwise.
  const checked = checkHistory(history, "reasoningView");
  const { running = true } = optionsOf(options, "reasoningView");
  if (typeof running !== "boolean") throw new TypeError("agui-reasoning: reasoningView's `running` must be a boolean");
  return readAgain("reasoningView", () => viewOf(checked, previous, running, history.durations));
}

/**
 * `reasoningView` of a checked history (the check's copies of its lists) and its checked options;
 * `given`, the durations list of the history as given, keys their lookup (the list read is new each call).
 */
function viewOf(
  history: ReasoningHistory,
  previous: ReasoningView | undefined,
  running: boolean,
  given: readonly ReasoningDuration[] | undefined,
): ReasoningView {
  const messages = history.messages;
  const durations = durationsById(given, history.durations);
  // A history nothing runs for streams nothing: an item it lists as open was cut off with its stream (R-RUN-5).
  const open = running ? openMessages(history) : NOTHING_OPEN;
  // Only a view of our own is read: any other may be anything, and any read of it may throw.
  if (previous !== undefined && !views.has(previous)) previous = undefined;
  const before = previous?.turns ?? NO_TURNS;
  const turns: TurnView[] = [];
  const ids = new Set<string>();
  let changed = false;
  let i = 0;
  while (i < messages.length) {
    if (!inTurn(messages[i]!)) {
      i++;
      continue;
    }
    let end = i + 1;
    while (end < messages.length && inTurn(messages[end]!)) end++;
    const id = uniqueId(messages[i]!.id, ids);
    const old = before[turns.length];
    const turn =
      old !== undefined && old.id === id && sameTurn(old, messages, i, end, durations, open)
        ? old
        : buildTurn(id, messages.slice(i, end), durations, open);
    if (turn !== old) changed = true;
    turns.push(turn);
    i = end;
  }
  if (!changed && previous !== undefined && turns.length === before.length) return previous;
  const view = { turns };
  views.add(view);
  return view;
}

/** The views `reasoningView` returned: the only `previous` it reads. */
const views = new WeakSet<ReasoningView>();

const NO_TURNS: readonly TurnView[] = [];

/**
 * `id`, or `id#2`, `id#3`, … when an earlier turn has it (and adds it to `ids`): a turn is keyed by its
 * first message's id, which two turns can share (a tool result under its call's message id,
 * D-TOOL-RESULT-ID, opening a turn), and a UI keys its list by it.
 */
function uniqueId(id: string, ids: Set<string>): string {
  let unique = id;
  for (let n = 2; ids.has(unique); n++) unique = `${id}#${n}`;
  ids.add(unique);
  return unique;
}

/** Roles that belong to an assistant turn (user, system and developer messages separate turns). */
function inTurn(message: Message): boolean {
  const role = message.role;
  return role !== "user" && role !== "system" && role !== "developer";
}

/** Whether the turn at `messages[start, end)` is `old`'s: the same message objects, durations and open state. */
function sameTurn(
  old: TurnView,
  messages: readonly Message[],
  start: number,
  end: number,
  durations: KindMap<ReasoningDuration>,
  open: ReadonlySet<string>,
): boolean {
  if (old.messages.length !== end - start) return false;
  for (let k = 0; k < old.messages.length; k++) if (old.messages[k] !== messages[start + k]) return false;
  for (const group of old.groups) {
    for (const block of group.blocks) {
      if (block.timing !== durations.get("message", block.id) || block.streaming !== open.has(block.id)) return false;
    }
  }
  return true;
}

function buildTurn(
  id: string,
  messages: readonly Message[],
  durations: KindMap<ReasoningDuration>,
  open: ReadonlySet<string>,
): TurnView {
  // Each group's blocks, in the order of its first block; the agent's open group, by owner ("" = parent).
  const groups: { blocks: ReasoningBlock[]; owner: string | undefined }[] = [];
  const openGroups = new Map<string, ReasoningBlock[]>();
  for (const message of messages) {
    const owner = (message as { subagentRunId?: string }).subagentRunId;
    const key = owner ?? "";
    if (message.role === "reasoning") {
      let blocks = openGroups.get(key);
      if (blocks === undefined) {
        openGroups.set(key, (blocks = []));
        groups.push({ blocks, owner });
      }
      blocks.push(blockOf(message, durations, open));
    } else if (message.role === "assistant" && message.content) openGroups.delete(key);
  }
  return { id, messages, groups: groups.map(({ blocks, owner }) => groupOf(blocks, owner)) };
}

function blockOf(
  message: Message & { readonly role: "reasoning" },
  durations: KindMap<ReasoningDuration>,
  open: ReadonlySet<string>,
): ReasoningBlock {
  const timing = durations.get("message", message.id);
  const text = typeof message.content === "string" ? message.content : "";
  const span = timing?.spanId === undefined ? undefined : durations.get("span", timing.spanId);
  return {
    id: message.id,
    text,
    title: span?.title,
    durationMs: elapsed(timing, timing),
    timing,
    streaming: open.has(message.id),
    redacted: text === "" && typeof (message as { encryptedValue?: unknown }).encryptedValue === "string",
  };
}

function groupOf(blocks: readonly ReasoningBlock[], subagentRunId: string | undefined): ReasoningGroup {
  // Once every block ended: from the first block's start (they start in order) to the latest end
  // (reasoning messages may interleave).
  let end = blocks[0]!.timing;
  for (const b of blocks) {
    if (b.durationMs === undefined) end = undefined;
    else if (end !== undefined && b.timing!.endedAt! > end.endedAt!) end = b.timing;
  }
  const group = { blocks, streaming: blocks.some((b) => b.streaming), durationMs: elapsed(blocks[0]!.timing, end) };
  return subagentRunId === undefined ? group : { ...group, subagentRunId };
}

/**
 * From `from`'s start to `to`'s end; none while either is missing, or when the instants are out of
 * order (timestamps are informative, R-EVT-3: a producer's clock may be behind, or another clock).
 */
function elapsed(from: ReasoningDuration | undefined, to: ReasoningDuration | undefined): number | undefined {
  if (from === undefined || to?.endedAt === undefined) return undefined;
  const ms = to.endedAt - from.startedAt;
  return ms >= 0 ? ms : undefined;
}

// One lookup per durations array: the array keeps its identity until a reasoning START or END.
const lookups = new WeakMap<readonly ReasoningDuration[], KindMap<ReasoningDuration>>();

/** Each duration of `durations` (the list `given` as read) by its kind and id: a span and a message may share an id. */
function durationsById(
  given: readonly ReasoningDuration[] | undefined,
  durations: readonly ReasoningDuration[] | undefined,
): KindMap<ReasoningDuration> {
  if (given === undefined || durations === undefined) return EMPTY_MAP;
  let map = lookups.get(given);
  if (map === undefined) {
    const built = new KindMap<ReasoningDuration>();
    for (const d of durations) built.set(d.kind === "span" ? "span" : "message", d.id, d);
    lookups.set(given, built);
    map = built;
  }
  return map;
}

const EMPTY_MAP = new KindMap<ReasoningDuration>();
const NOTHING_OPEN: ReadonlySet<string> = new Set();

/** Ids of reasoning messages open in a running run (not abandoned or truncated: those stream no more). */
function openMessages(history: ReasoningHistory): ReadonlySet<string> {
  return new Set(history.incomplete.filter((i) => i.kind === "message" && i.reason === "open").map((i) => i.id));
}
