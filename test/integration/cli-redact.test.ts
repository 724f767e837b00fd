/**
 * `redact`, what `check --json` and `--history` print of a stream's secrets (issue 12, finding 5):
 * by key, and by occurrence — whole strings equal to a declared value or a reasoning delta, and
 * long secrets inside longer strings — while ids, types and other content stay as they are.
 */
import { StreamSecrets, redact, redactedReasoning, redactedValue } from "../../src/cli/redact";

const VALUE = "gAAAAA-redact-unit-VALUE-0123456789";
const DELTA = "the user seems unsure about the date";

function secretsOf(...events: unknown[]): StreamSecrets {
  const secrets = new StreamSecrets();
  for (const e of events) secrets.collect(e);
  return secrets;
}

const source = [
  { type: "REASONING_ENCRYPTED_VALUE", subtype: "message", entityId: "m1", encryptedValue: VALUE },
  { type: "REASONING_MESSAGE_CONTENT", messageId: "m1", delta: DELTA },
  { type: "REASONING_MESSAGE_CHUNK", messageId: "m2", delta: "m1" },
  { type: "REASONING_ENCRYPTED_VALUE", subtype: "message", entityId: "m1", encryptedValue: "short" },
];
const hidden = { showValues: false, showReasoning: false, secrets: secretsOf(...source) };

describe("redact", () => {
  it("R-REASON-26: a declared value is redacted under any key, inside a longer string, and in arrays", () => {
    const out = redact(
      { a: { sig: VALUE }, b: `prefix ${VALUE} suffix ${VALUE}`, c: [VALUE, "short", "shortly"] },
      hidden,
    );
    expect(out).toEqual({
      a: { sig: redactedValue(VALUE) },
      b: `prefix ${redactedValue(VALUE)} suffix ${redactedValue(VALUE)}`,
      c: [redactedValue(VALUE), redactedValue("short"), "shortly"],
    });
  });

  it("R-REASON-25: a reasoning delta is redacted under any key and inside a longer string; ids equal to a delta stay", () => {
    const out = redact(
      { messageId: "m1", note: "m1", copy: { text: DELTA }, json: JSON.stringify({ t: DELTA }), role: "m1" },
      hidden,
    );
    expect(out).toEqual({
      messageId: "m1",
      note: redactedReasoning("m1"),
      copy: { text: redactedReasoning(DELTA) },
      json: JSON.stringify({ t: redactedReasoning(DELTA) }),
      role: "m1",
    });
  });

  it("R-REASON-25/26: --show-values and --show-reasoning each lift their own redaction only", () => {
    const input = { v: VALUE, t: DELTA, s: `${VALUE}|${DELTA}` };
    expect(redact(input, { ...hidden, showValues: true })).toEqual({
      v: VALUE,
      t: redactedReasoning(DELTA),
      s: `${VALUE}|${redactedReasoning(DELTA)}`,
    });
    expect(redact(input, { ...hidden, showReasoning: true })).toEqual({
      v: redactedValue(VALUE),
      t: DELTA,
      s: `${redactedValue(VALUE)}|${DELTA}`,
    });
    expect(redact(input, { showValues: true, showReasoning: true, secrets: hidden.secrets })).toBe(input);
  });

  it("D-REDACT: a tree without secrets is returned as it is; singular and plural are right", () => {
    const clean = { type: "TEXT_MESSAGE_CONTENT", messageId: "a1", delta: "Hello" };
    expect(redact(clean, hidden)).toBe(clean);
    expect([redactedValue("x"), redactedValue("xy"), redactedReasoning("😀"), redactedReasoning("ab")]).toEqual([
      "[redacted: 1 byte]",
      "[redacted: 2 bytes]",
      "[reasoning: 1 character]",
      "[reasoning: 2 characters]",
    ]);
  });
});
