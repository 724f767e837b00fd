/**
 * The check's lint rules (issue 22, src/cli/lint-rules.ts): reasoning practices no other tool checks,
 * each a non-lossy warning with its rule or decision id. Each fires where its condition holds — a
 * condition computed here independently, from the raw recording — and stays silent on every
 * legitimate stream of test/fixtures/real-streams where it does not apply.
 */
import { readFileSync, readdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { ev } from "../../src/testing/builders";
import { WARNING_CODES } from "../../src/core/warning-codes";
import { check, jsonl, useTempFiles } from "./cli-support";

const ROOT = resolve(__dirname, "../..");
const CORPUS = join(ROOT, "test/fixtures/real-streams");
const file = useTempFiles("agui-cli-lint-");
const LINT_CODES = ["MESSAGE_ID_REUSED", "SNAPSHOT_DROPS_REASONING", "REASONING_ROLE", "REASONING_WITHOUT_TIMESTAMP"];

type Raw = Record<string, unknown>;
const isReasoning = (t: unknown): boolean =>
  typeof t === "string" && /^(REASONING_|THINKING_)/.test(t) && t !== "REASONING_ENCRYPTED_VALUE";

/** The runs of a recording, as the raw events the producer wrote. */
function runsOf(events: readonly Raw[]): Raw[][] {
  const runs: Raw[][] = [];
  for (const e of events) {
    if (e.type === "RUN_STARTED" || runs.length === 0) runs.push([]);
    runs.at(-1)!.push(e);
  }
  return runs;
}

/** Which lint rules a recording calls for, judged from its raw events (not by the rules' code). */
function expectedCodes(events: readonly Raw[]): Set<string> {
  const codes = new Set<string>();
  const earlier = new Set<string>();
  // A reasoning message a value was stored on, reopened by a later START (in any run).
  const valued = new Set<unknown>();
  for (const e of events) {
    if (e.type === "REASONING_ENCRYPTED_VALUE" && e.subtype === "message") valued.add(e.entityId);
    if (e.type === "REASONING_MESSAGE_START" && valued.has(e.messageId)) codes.add("MESSAGE_ID_REUSED");
  }
  for (const run of runsOf(events)) {
    const started = run
      .filter((e) => /^(TEXT|REASONING)_MESSAGE_(START|CHUNK)$/.test(String(e.type)) && typeof e.messageId === "string")
      .map((e) => e.messageId as string);
    if (started.some((id) => earlier.has(id))) codes.add("MESSAGE_ID_REUSED");
    for (const id of started) earlier.add(id);
    const streamed = run
      .filter((e) => /^REASONING_MESSAGE_(START|CHUNK)$/.test(String(e.type)))
      .map((e) => e.messageId);
    for (const s of run.filter((e) => e.type === "MESSAGES_SNAPSHOT")) {
      const stated = (s.messages as Raw[]).filter((m) => m.role === "reasoning").map((m) => m.id);
      const before = streamed.slice(0, run.indexOf(s));
      if (stated.length > 0 && before.some((id) => !stated.includes(id))) codes.add("SNAPSHOT_DROPS_REASONING");
    }
    if (
      run.some(
        (e) =>
          /CHUNK|THINKING_TEXT_MESSAGE_START/.test(String(e.type)) &&
          isReasoning(e.type) &&
          typeof e.role === "string" &&
          e.role !== "reasoning",
      )
    )
      codes.add("REASONING_ROLE");
    const reasoning = run.filter((e) => isReasoning(e.type));
    const stamped = (list: Raw[]): boolean => list.some((e) => typeof e.timestamp === "number");
    if (reasoning.length > 0 && !stamped(reasoning) && stamped(run.filter((e) => !isReasoning(e.type))))
      codes.add("REASONING_WITHOUT_TIMESTAMP");
  }
  return codes;
}

function parse(name: string): Raw[] {
  const text = readFileSync(join(CORPUS, name), "utf8");
  const lines = name.endsWith(".sse")
    ? text.split(/\r?\n\r?\n/).map((frame) =>
        frame
          .split(/\r?\n/)
          .filter((l) => l.startsWith("data:"))
          .map((l) => l.slice(5).trimStart())
          .join("\n"),
      )
    : text.split("\n");
  return lines.filter((l) => l.trim() !== "").map((l) => JSON.parse(l) as Raw);
}

const corpus = readdirSync(CORPUS).filter((f) => /\.(jsonl|sse)$/.test(f));

describe("lint rules over the real producers' streams", () => {
  it("covers the corpus", () => {
    expect(corpus.length).toBeGreaterThanOrEqual(40);
  });

  it.each(corpus)(
    "R-EVT-8 R-REASON-20 R-SCHEMA-2 R-EVT-3: %s gets exactly the lint warnings its events call for",
    async (name) => {
      const r = await check(["check", join(CORPUS, name), "--json", "--no-progress"]);
      const json = JSON.parse(r.stdout) as { outcome: string; warnings: { code: string }[] };
      const fired = new Set(json.warnings.map((w) => w.code).filter((c) => LINT_CODES.includes(c)));
      const expected = expectedCodes(parse(name));
      // A violation stops the stream: a rule may then not have reached what calls for it, never more.
      if (json.outcome === "failed") expect([...fired].filter((c) => !expected.has(c))).toEqual([]);
      else expect([...fired].sort()).toEqual([...expected].sort());
    },
  );
});

describe("each lint rule", () => {
  it("R-EVT-8: MESSAGE_ID_REUSED — a later run's START names a message an earlier run (or the run input) holds", async () => {
    const runs = [
      ev.runStarted("r1"),
      ev.textStart("1"),
      ev.textEnd("1"),
      ev.runFinished("r1"),
      ev.runStarted("r2"),
      ev.textStart("1"),
      ev.textContent("1", "x"),
      ev.textEnd("1"),
      ev.textStart("1"),
      ev.textEnd("1"),
      ev.runFinished("r2"),
    ];
    const json = JSON.parse((await check(["check", file("reuse.jsonl", jsonl(runs)), "--json"])).stdout);
    expect(json.warnings).toEqual([
      expect.objectContaining({ code: "MESSAGE_ID_REUSED", rule: "R-EVT-8", eventIndex: 5, ids: ["1"] }),
    ]);
    expect(json.warnings[0].lossy).toBeUndefined();
    // Reopening within one run is not a reuse across runs.
    const once = [
      ev.runStarted("r1"),
      ev.textStart("1"),
      ev.textEnd("1"),
      ev.textStart("1"),
      ev.textEnd("1"),
      ev.runFinished("r1"),
    ];
    expect(JSON.parse((await check(["check", file("reopen.jsonl", jsonl(once)), "--json"])).stdout).warnings).toEqual(
      [],
    );
  });

  it("R-EVT-8 D-REPEAT: MESSAGE_ID_REUSED — a REASONING_MESSAGE_START reopens a reasoning message that holds a value, in the same run", async () => {
    // The Vercel AI SDK adapter's shape with Anthropic: every step's reasoning block is named "0".
    const steps = [
      ev.runStarted("r1"),
      ev.reasoningMessageStart("0"),
      ev.reasoningMessageContent("0", "Need weather."),
      ev.reasoningMessageEnd("0"),
      ev.encryptedValue("message", "0", "sig-step-1"),
      ev.textStart("1"),
      ev.textEnd("1"),
      ev.reasoningMessageStart("0"),
      ev.reasoningMessageContent("0", "Got it."),
      ev.reasoningMessageEnd("0"),
      ev.encryptedValue("message", "0", "sig-step-2"),
      ev.reasoningMessageStart("0"),
      ev.reasoningMessageEnd("0"),
      ev.runFinished("r1"),
    ];
    const r = await check(["check", file("steps.jsonl", jsonl(steps)), "--json"]);
    const json = JSON.parse(r.stdout);
    expect(json.warnings).toEqual([
      expect.objectContaining({
        code: "MESSAGE_ID_REUSED",
        rule: "R-EVT-8",
        eventIndex: 7,
        ids: ["0"],
        message: expect.stringContaining("already holds an encrypted value"),
      }),
    ]);
    expect(json.warnings[0].lossy).toBeUndefined();
    expect(r.stdout).not.toContain("sig-step");
    // A reopened reasoning message without a value, and a text message, are not flagged within a run.
    const plain = [
      ev.runStarted("r1"),
      ev.reasoningMessageStart("0"),
      ev.reasoningMessageEnd("0"),
      ev.textStart("1"),
      ev.textEnd("1"),
      ev.encryptedValue("message", "1", "sig-text"),
      ev.reasoningMessageStart("0"),
      ev.reasoningMessageEnd("0"),
      ev.textStart("1"),
      ev.textEnd("1"),
      ev.runFinished("r1"),
    ];
    expect(JSON.parse((await check(["check", file("plain.jsonl", jsonl(plain)), "--json"])).stdout).warnings).toEqual(
      [],
    );
  });

  it("R-REASON-20: SNAPSHOT_DROPS_REASONING — only when the snapshot states reasoning, but not the run's", async () => {
    const streamed = [ev.runStarted("r1"), ev.reasoningMessageStart("m1"), ev.reasoningMessageEnd("m1")];
    const other = { id: "m0", role: "reasoning", content: "x" } as const;
    const answer = { id: "a1", role: "assistant", content: "hi" } as const;
    const drops = [...streamed, ev.messagesSnapshot([other, answer]), ev.runFinished("r1")];
    const json = JSON.parse((await check(["check", file("drops.jsonl", jsonl(drops)), "--json"])).stdout);
    expect(json.warnings).toEqual([
      expect.objectContaining({ code: "SNAPSHOT_DROPS_REASONING", ids: ["m1"], eventIndex: 3 }),
    ]);
    expect(json.history.messages.map((m: { id: string }) => m.id)).toEqual(["m0", "a1"]);
    for (const [name, messages] of [
      ["keeps.jsonl", [{ id: "m1", role: "reasoning", content: "" }, answer]],
      ["none.jsonl", [answer]],
    ] as const) {
      const ok = [...streamed, ev.messagesSnapshot([...messages]), ev.runFinished("r1")];
      expect(JSON.parse((await check(["check", file(name, jsonl(ok)), "--json"])).stdout).warnings).toEqual([]);
    }
  });

  it("R-SCHEMA-2: REASONING_ROLE — a reasoning chunk or 0.x opener labelled with another role; a START so labelled is fatal", async () => {
    const chunk = [ev.runStarted("r1"), ev.reasoningChunk("m1", "x", { role: "assistant" }), ev.runFinished("r1")];
    const json = JSON.parse((await check(["check", file("role.jsonl", jsonl(chunk)), "--json"])).stdout);
    expect(json.warnings.map((w: { code: string }) => w.code)).toEqual(["REASONING_ROLE", "STRIPPED_PROPERTY"]);
    const legacy = [
      ev.runStarted("r1"),
      ev.thinkingStart(),
      ev.thinkingTextMessageStart({ role: "assistant" }),
      ev.thinkingTextMessageEnd(),
      ev.thinkingEnd(),
      ev.runFinished("r1"),
    ];
    const codes = JSON.parse(
      (await check(["check", file("role-legacy.jsonl", jsonl(legacy)), "--json"])).stdout,
    ).warnings.map((w: { code: string }) => w.code);
    expect(codes).toContain("REASONING_ROLE");
    const start = [ev.runStarted("r1"), ev.reasoningMessageStart("m1", { role: "assistant" })];
    expect(
      JSON.parse((await check(["check", file("role-start.jsonl", jsonl(start)), "--json"])).stdout).error.code,
    ).toBe("MALFORMED_EVENT");
  });

  it("R-EVT-3: REASONING_WITHOUT_TIMESTAMP (the rule cites the duration decision) — the run stamps its other events but no reasoning event; once per run", async () => {
    const t = { timestamp: 1_764_600_000_000 };
    const unstamped = [
      ev.runStarted("r1", t),
      ev.reasoningStart("s1"),
      ev.reasoningMessageStart("m1"),
      ev.reasoningMessageEnd("m1"),
      ev.reasoningEnd("s1"),
      ev.runFinished("r1", t),
    ];
    const json = JSON.parse((await check(["check", file("ts.jsonl", jsonl(unstamped)), "--json"])).stdout);
    expect(json.warnings).toEqual([
      expect.objectContaining({ code: "REASONING_WITHOUT_TIMESTAMP", rule: "D-DURATION", eventIndex: 1 }),
    ]);
    const stamped = unstamped.map((e, i) => (i === 1 ? { ...e, ...t } : e));
    expect(JSON.parse((await check(["check", file("ts-ok.jsonl", jsonl(stamped)), "--json"])).stdout).warnings).toEqual(
      [],
    );
    const nothing = unstamped.map(({ timestamp: _t, ...e }: Record<string, unknown>) => e);
    expect(
      JSON.parse((await check(["check", file("ts-none.jsonl", jsonl(nothing)), "--json"])).stdout).warnings,
    ).toEqual([]);
  });

  it("D-REDACT: the lint warnings of a recording tripping all four name ids and types, never its text", async () => {
    const r = await check(["check", join(ROOT, "test/fixtures/cli/lint-rules.jsonl"), "--json"]);
    const warnings = (JSON.parse(r.stdout) as { warnings: { code: string }[] }).warnings.filter((w) =>
      LINT_CODES.includes(w.code),
    );
    expect(warnings.map((w) => w.code).sort()).toEqual([...LINT_CODES].sort());
    for (const text of ["Checking the order", "It ships today", "Second question", "Tomorrow"])
      expect(JSON.stringify(warnings)).not.toContain(text);
  });

  it("D-WARN: every lint code is catalogued, non-lossy, under the rule it cites", () => {
    expect(LINT_CODES.map((c) => WARNING_CODES[c as keyof typeof WARNING_CODES].rules)).toEqual([
      { "R-EVT-8": false },
      { "R-REASON-20": false },
      { "R-SCHEMA-2": false },
      { "D-DURATION": false },
    ]);
  });
});
