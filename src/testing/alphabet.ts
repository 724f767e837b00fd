import { objectArgument } from "./arguments";
import { ev } from "./builders";

/**
 * A marble value alphabet: one character per event, chosen so a diagram reads like the stream.
 *
 * ```
 * R RUN_STARTED r1           F RUN_FINISHED r1           X RUN_ERROR
 * [ REASONING_START s1       ] REASONING_END s1
 * < REASONING_MESSAGE_START m1    > REASONING_MESSAGE_END m1
 * c REASONING_MESSAGE_CONTENT m1 "Let me"    C REASONING_MESSAGE_CONTENT m1 " think."
 * k REASONING_MESSAGE_CHUNK m1 "Let me"  (expands to < c)
 * K REASONING_MESSAGE_CHUNK, no id, " think."  (expands to C)
 * v REASONING_ENCRYPTED_VALUE message m1      w REASONING_ENCRYPTED_VALUE tool-call tc1
 * u REASONING_ENCRYPTED_VALUE naming an unknown message (dropped with UNKNOWN_ENTITY)
 * t TEXT_MESSAGE_START a1    a TEXT_MESSAGE_CONTENT a1 "Hello"    T TEXT_MESSAGE_END a1
 * h TEXT_MESSAGE_CHUNK a1 "Hello"  (expands to t a)
 * { TOOL_CALL_START tc1 "search"   : TOOL_CALL_ARGS tc1   } TOOL_CALL_END tc1
 * x TOOL_CALL_RESULT tr1 for tc1   ~ RAW   * CUSTOM   ? an unknown event type (dropped with a warning)
 * ```
 *
 * So `cold("R [ k--- K ]--- F |", alphabet)` through the pipeline reads back as
 * `"R [ (<c) C (>]) F |"` (a group of n values spans n + 2 frames: the dashes keep the rows aligned). The alphabet is strict: a diagram character it does not define throws
 * (instead of silently emitting `undefined`). Extend it with {@link extendAlphabet}.
 */
export type Alphabet = Readonly<Record<string, unknown>>;

const LETTERS: Record<string, unknown> = {
  R: ev.runStarted(),
  F: ev.runFinished(),
  X: ev.runError(),
  "[": ev.reasoningStart("s1"),
  "]": ev.reasoningEnd("s1"),
  "<": ev.reasoningMessageStart("m1"),
  c: ev.reasoningMessageContent("m1", "Let me"),
  C: ev.reasoningMessageContent("m1", " think."),
  ">": ev.reasoningMessageEnd("m1"),
  k: ev.reasoningChunk("m1", "Let me"),
  K: ev.reasoningChunk(undefined, " think."),
  v: ev.encryptedValue("message", "m1", "enc-m1"),
  w: ev.encryptedValue("tool-call", "tc1", "enc-tc1"),
  u: ev.encryptedValue("message", "unknown", "enc-unknown"),
  t: ev.textStart("a1"),
  a: ev.textContent("a1", "Hello"),
  T: ev.textEnd("a1"),
  h: ev.textChunk("a1", "Hello"),
  "{": ev.toolCallStart("tc1", "search"),
  ":": ev.toolCallArgs("tc1", '{"q":"x"}'),
  "}": ev.toolCallEnd("tc1"),
  x: ev.toolCallResult("tr1", "tc1", "42"),
  "~": ev.raw({ provider: "test" }),
  "*": ev.custom("note"),
  "?": { type: "REASONING_SUMMARY", messageId: "s1" },
};

// Characters the marble parser gives a meaning of its own (in run mode spaces only align).
const RESERVED = new Set([" ", "-", "(", ")", "|", "^", "#", "!"]);

/** The default alphabet (see {@link Alphabet}). Frozen; strict about unknown characters. */
export const alphabet: Alphabet = strict(LETTERS);

/**
 * A strict alphabet: `base` plus `extra` (extra wins). Keys must be single characters the marble
 * parser does not reserve (`-`, space, `(`, `)`, `|`, `^`, `#`, `!`).
 */
export function extendAlphabet(extra: Record<string, unknown>, base: Alphabet = alphabet): Alphabet {
  return strict({
    ...objectArgument(base, "extendAlphabet", "base"),
    ...objectArgument(extra, "extendAlphabet", "extra"),
  });
}

function strict(letters: Record<string, unknown>): Alphabet {
  for (const key of Object.keys(letters)) {
    if (key.length !== 1 || RESERVED.has(key)) {
      throw new Error(
        `agui-reasoning/testing: alphabet key ${JSON.stringify(key)} must be one character other than "- ()|^#!"`,
      );
    }
  }
  const frozen = Object.freeze({ ...letters });
  return new Proxy(frozen, {
    get(target, key, receiver) {
      // Only one-character lookups come from a diagram; anything else (toJSON, then, …) is answered plainly.
      if (typeof key === "string" && key.length === 1 && !(key in target)) {
        throw new Error(`agui-reasoning/testing: marble character ${JSON.stringify(key)} is not in the alphabet`);
      }
      return Reflect.get(target, key, receiver) as unknown;
    },
  });
}
