/**
 * What the check prints of a stream's secrets. Encrypted values are a capability for the producer
 * that issued them (R-REASON-26), and reasoning text has the conversation's confidentiality
 * (R-REASON-25): `--json` and `--history` show byte lengths and character counts instead, unless the
 * user asks (`--show-values`, `--show-reasoning`). Redaction goes by key (`encryptedValue`, a reasoning
 * delta, a reasoning message's content) and by occurrence: a string the stream declared encrypted or
 * sent as reasoning is replaced wherever it appears — a `rawEvent` copy, metadata, another field.
 */
import { byteLength } from "../core/json";
import { plural } from "../core/plural";
import { codePoints } from "./run-report";

export const redactedValue = (value: string): string => `[redacted: ${plural(byteLength(value), "byte")}]`;
export const redactedReasoning = (text: string): string => `[reasoning: ${plural(codePoints(text), "character")}]`;

/** Event types whose `delta` is reasoning text (source spellings included: they are collected raw). */
const REASONING_DELTA_TYPES: ReadonlySet<unknown> = new Set([
  "REASONING_MESSAGE_CONTENT",
  "REASONING_MESSAGE_CHUNK",
  "THINKING_TEXT_MESSAGE_CONTENT",
]);

/** Keys naming things rather than holding content: a reasoning delta that equals an id stays an id there. */
const NAME_KEY = /^(type|role|subtype|id|name)$|(Id|Ids|Name|Type)$/;

/**
 * Secrets shorter than this are redacted where a whole string equals them; longer ones also where a
 * longer string contains them (a value or a delta inside a serialized `rawEvent`). Shorter ones would
 * match by chance ("x" is in every sentence, " the" in every reply).
 */
const SUBSTRING_MIN = 16;

/**
 * The secrets a stream declared, collected from its source events as they are read: every
 * `encryptedValue` string at any depth, every reasoning delta, every reasoning message's content
 * in a snapshot. Kept only when output will print events or messages (`--json`, `--history`).
 */
export class StreamSecrets {
  readonly values = new Set<string>();
  readonly reasoning = new Set<string>();
  /** Long secrets by their first SUBSTRING_MIN characters, for the substring search. */
  readonly byPrefix = new Map<string, LongSecret[]>();
  /** Deltas of each reasoning message still streaming, to add its assembled text when it ends. */
  private readonly streaming = new Map<string, string[]>();

  /**
   * One validated event: a reasoning message's text is also a secret as a whole, once assembled from
   * its deltas (a producer's RAW event or state snapshot carries the model output in one piece).
   * Read from the validated stream, where chunks and THINKING_* events are already REASONING_MESSAGE_*.
   */
  assemble(event: { readonly type: string; readonly messageId?: unknown; readonly delta?: unknown }): void {
    if (typeof event.messageId !== "string") return;
    if (event.type === "REASONING_MESSAGE_CONTENT" && typeof event.delta === "string") {
      const parts = this.streaming.get(event.messageId);
      if (parts) parts.push(event.delta);
      else this.streaming.set(event.messageId, [event.delta]);
    } else if (event.type === "REASONING_MESSAGE_END") this.ended(event.messageId);
  }

  /** The stream ended: the text of messages still open (truncated) is a secret too. */
  flush(): void {
    for (const id of [...this.streaming.keys()]) this.ended(id);
  }

  private ended(id: string): void {
    const parts = this.streaming.get(id);
    this.streaming.delete(id);
    if (parts && parts.length > 1) this.add(parts.join(""), false);
  }

  /**
   * Walks one source event (iteratively: any depth JSON.parse accepted) and returns how deeply it
   * nests: 0 for a scalar, 1 for `{}` or `[]`, one more per level inside. The same walk measures it
   * because output that prints events overflows the call stack on hostile nesting (JSON.stringify
   * recurses), and then names the deepest event.
   */
  collect(event: unknown): number {
    if (typeof event !== "object" || event === null) return 0;
    let deepest = 0;
    // Containers still to open, with their depth (parallel stacks: no object per entry).
    const stack: object[] = [event];
    const depths: number[] = [1];
    while (stack.length > 0) {
      const node = stack.pop()!;
      const depth = depths.pop()!;
      if (depth > deepest) deepest = depth;
      let children: unknown[];
      if (Array.isArray(node)) children = node;
      else {
        const o = node as Record<string, unknown>;
        if (typeof o.encryptedValue === "string") this.add(o.encryptedValue, true);
        if (REASONING_DELTA_TYPES.has(o.type) && typeof o.delta === "string") this.add(o.delta, false);
        if (o.role === "reasoning" && typeof o.content === "string") this.add(o.content, false);
        children = Object.values(o);
      }
      for (const child of children) {
        if (typeof child === "object" && child !== null) {
          stack.push(child);
          depths.push(depth + 1);
        }
      }
    }
    return deepest;
  }

  /** `value`: an encrypted value, else reasoning text. */
  private add(text: string, value: boolean): void {
    const known = value ? this.values : this.reasoning;
    if (text === "" || known.has(text)) return;
    known.add(text);
    if (text.length < SUBSTRING_MIN) return;
    const prefix = text.slice(0, SUBSTRING_MIN);
    const list = this.byPrefix.get(prefix);
    if (list) list.push({ text, value });
    else this.byPrefix.set(prefix, [{ text, value }]);
  }
}

/** A secret long enough to be searched for inside other strings. */
interface LongSecret {
  readonly text: string;
  /** An encrypted value (else reasoning text). */
  readonly value: boolean;
}

export interface RedactOptions {
  readonly showValues: boolean;
  readonly showReasoning: boolean;
  /** Occurrences to redact besides the keyed fields; none for a bare key-based pass. */
  readonly secrets?: StreamSecrets;
}

/** An object or array being walked by `redact`, and where its result goes. */
interface Frame {
  readonly node: Record<string, unknown> | unknown[];
  /** Its keys (indices for arrays), and the next one to visit. */
  readonly keys: readonly string[];
  next: number;
  /** The copy made on the first changed child; `undefined` while nothing changed. */
  copy: Record<string, unknown> | unknown[] | undefined;
  /** The frame holding this node, and the key it is held under (`undefined` for the root). */
  readonly parent: Frame | undefined;
  readonly key: string;
}

/**
 * A copy of `node` with its secrets replaced (see the file comment); parts without one are
 * returned as they are, and only the path down to a replaced string is copied. Iterative: a
 * recorded event may be nested far deeper than the call stack (hostile input).
 */
export function redact<T>(node: T, options: RedactOptions): T {
  if (!isContainer(node)) return node;
  const replace = replacer(options);
  let frame: Frame | undefined = frameOf(node, undefined, "");
  let done: unknown = node;
  while (frame !== undefined) {
    if (frame.next < frame.keys.length) {
      const key = frame.keys[frame.next++]!;
      const value = (frame.node as Record<string, unknown>)[key];
      if (typeof value === "string") {
        const replaced = replace(frame.node, key, value);
        if (replaced !== value) set(frame, key, replaced);
      } else if (isContainer(value)) frame = frameOf(value, frame, key);
      continue;
    }
    // Every child visited: hand the result (the copy, or the node itself) to the parent.
    done = frame.copy ?? frame.node;
    const { parent, key }: Frame = frame;
    if (parent !== undefined && done !== frame.node) set(parent, key, done);
    frame = parent;
  }
  return done as T;
}

/** The replacement of one string held under `key` of `holder` (the string itself when it stays). */
function replacer(options: RedactOptions): (holder: object, key: string, value: string) => string {
  const { showValues, showReasoning, secrets } = options;
  return (holder, key, value) => {
    // An empty value or text says nothing: kept, so that the output still shows it was empty.
    if (value === "") return value;
    const o = holder as Record<string, unknown>;
    const isArray = Array.isArray(holder);
    // Whole strings first (by key, then by equality), measured on the original; then secrets inside.
    if (!showValues && ((key === "encryptedValue" && !isArray) || secrets?.values.has(value)))
      return redactedValue(value);
    if (!showReasoning && !isArray) {
      if (key === "delta" && REASONING_DELTA_TYPES.has(o.type)) return redactedReasoning(value);
      if (key === "content" && o.role === "reasoning") return redactedReasoning(value);
    }
    if (!showReasoning && secrets?.reasoning.has(value) && !NAME_KEY.test(key)) return redactedReasoning(value);
    if (secrets && secrets.byPrefix.size > 0 && value.length >= SUBSTRING_MIN) {
      return redactInside(value, secrets, (s) => (s.value ? !showValues : !showReasoning));
    }
    return value;
  };
}

/**
 * `text` with every long secret inside it that `hidden` selects replaced (the whole of `text` when it
 * is one); one pass over `text`, a map lookup per position.
 */
function redactInside(text: string, secrets: StreamSecrets, hidden: (s: LongSecret) => boolean): string {
  let out = "";
  let from = 0;
  for (let i = 0; i + SUBSTRING_MIN <= text.length;) {
    const candidates = secrets.byPrefix.get(text.slice(i, i + SUBSTRING_MIN));
    const hit = candidates?.find((s) => hidden(s) && text.startsWith(s.text, i));
    if (hit === undefined) {
      i++;
      continue;
    }
    out += text.slice(from, i) + (hit.value ? redactedValue(hit.text) : redactedReasoning(hit.text));
    i += hit.text.length;
    from = i;
  }
  return from === 0 ? text : out + text.slice(from);
}

function isContainer(value: unknown): value is Record<string, unknown> | unknown[] {
  return typeof value === "object" && value !== null;
}

function frameOf(node: Record<string, unknown> | unknown[], parent: Frame | undefined, key: string): Frame {
  return { node, keys: Object.keys(node), next: 0, copy: undefined, parent, key };
}

/** Writes a changed child into the frame's copy, copying the node first (copy on write). */
function set(frame: Frame, key: string, value: unknown): void {
  frame.copy ??= Array.isArray(frame.node) ? [...frame.node] : { ...frame.node };
  (frame.copy as Record<string, unknown>)[key] = value;
}
