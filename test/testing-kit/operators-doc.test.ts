import type { ReasoningWarningCode } from "../../src/core/warning-codes";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { Subject, type Observable } from "rxjs";
import {
  deriveHistory,
  enforceSchema,
  expandChunks,
  reasoningPipeline,
  upcastThinking,
  verifyDiscipline,
  type ReasoningWarning,
} from "../../src";
import {
  alphabet,
  createTestScheduler,
  ev,
  expectPipeline,
  historyOf,
  msg,
  protocolErrorWith,
  sequentialIds,
  TEST_PRODUCER,
  warningWith,
} from "../../src/testing";

/**
 * Runs every ```marble <operator>``` block of docs/operators.md, so the reference cannot drift from
 * what the operators do. The letters are the kit's alphabet plus each section's legend (below).
 */

const DOC = readFileSync(resolve(__dirname, "../../docs/operators.md"), "utf8");
const BLOCKS = [...DOC.matchAll(/^```marble (\S+)\n([\s\S]*?)^```/gm)].map((m, i) => ({
  n: i + 1,
  operator: m[1]!,
  rows: rowsOf(m[2]!),
}));

function rowsOf(text: string): Record<string, string> {
  const rows: Record<string, string> = {};
  for (const line of text.split("\n")) {
    const match = /^(\w+):\s*(.*)$/.exec(line.trim());
    if (match) rows[match[1]!] = match[2]!;
  }
  return rows;
}

const open = (id: string) => ({ kind: "message" as const, id, reason: "open" as const });
const issuer = { subtype: "message" as const, entityId: "m1", issuer: TEST_PRODUCER };

interface Setup {
  /** The section's legend: letters of the source, output and history rows. */
  readonly values: Record<string, unknown>;
  /** Letters of the warnings row → warning code. */
  readonly warnings?: Record<string, string>;
  /** The operator under test, given the warning sink. */
  readonly apply?: (source: Observable<unknown>, onWarning: (w: ReasoningWarning) => void) => Observable<unknown>;
}

const SETUPS: Record<string, Setup> = {
  upcastThinking: {
    values: {
      R: ev.runStarted(),
      F: ev.runFinished(),
      o: ev.thinkingStart({ title: "Plan" }),
      p: ev.thinkingTextMessageStart(),
      q: ev.thinkingTextMessageContent("Let me"),
      r: ev.thinkingTextMessageEnd(),
      e: ev.thinkingEnd(),
      s: ev.reasoningStart("think-1", { metadata: { "agui-reasoning": { thinkingTitle: "Plan" } } }),
      m: ev.reasoningMessageStart("think-2"),
      c: ev.reasoningMessageContent("think-2", "Let me"),
      n: ev.reasoningMessageEnd("think-2"),
      N: ev.reasoningEnd("think-1"),
    },
    warnings: { w: "THINKING_UPCAST", t: "THINKING_TITLE_MOVED" },
    apply: (source, onWarning) => source.pipe(upcastThinking({ idFactory: sequentialIds(), onWarning })),
  },
  enforceSchema: {
    values: {
      R: ev.runStarted(),
      F: ev.runFinished(),
      s: ev.reasoningStart("s1", { title: "Plan" }),
      S: ev.reasoningStart("s1"),
      "?": alphabet["?"],
      a: ev.encryptedValue("artifact", "m1", "v"),
      W: ev.reasoningMessageStart("m1", { role: "assistant" }),
    },
    warnings: { p: "STRIPPED_PROPERTY", u: "UNKNOWN_EVENT_TYPE", b: "UNKNOWN_SUBTYPE" },
    apply: (source, onWarning) => source.pipe(enforceSchema({ onWarning })),
  },
  expandChunks: { values: alphabet, apply: (source, onWarning) => source.pipe(expandChunks({ onWarning }) as never) },
  verifyDiscipline: {
    values: alphabet,
    apply: (source, onWarning) => source.pipe(verifyDiscipline({ onWarning }) as never),
  },
  deriveHistory: {
    values: {
      ...alphabet,
      0: historyOf(),
      1: historyOf([msg.reasoning("m1")], { incomplete: [open("m1")] }),
      2: historyOf([msg.reasoning("m1", "Let me")], { incomplete: [open("m1")] }),
      3: historyOf([msg.reasoning("m1", "Let me")]),
      4: historyOf([msg.reasoning("m1", "Let me", { encryptedValue: "enc-m1" })], { issuers: [issuer] }),
    },
    apply: (source, onWarning) => source.pipe(deriveHistory({ producer: TEST_PRODUCER, onWarning }) as never),
  },
  reasoningPipeline: {
    values: {
      ...alphabet,
      0: historyOf(),
      1: historyOf([msg.reasoning("m1", "Let me")], { incomplete: [open("m1")] }),
      2: historyOf([msg.reasoning("m1", "Let me think.")], { incomplete: [open("m1")] }),
      3: historyOf([msg.reasoning("m1", "Let me think.")]),
      4: historyOf([msg.reasoning("m1", "Let me think.", { encryptedValue: "enc-m1" })], { issuers: [issuer] }),
    },
  },
};

/** `ORPHAN_CONTENT R-REASON-9 at #5` → the expected error. */
function errorOf(row: string | undefined): unknown {
  if (row === undefined) return undefined;
  const match = /^(\S+) (\S+) at #(\d+)$/.exec(row.trim());
  if (!match) throw new Error(`docs/operators.md: cannot read the error row ${JSON.stringify(row)}`);
  return protocolErrorWith(match[1] as never, { rule: match[2]!, eventIndex: Number(match[3]) });
}

describe("docs/operators.md: every marble diagram holds", () => {
  it("has a diagram for every operator and the facade", () => {
    expect([...new Set(BLOCKS.map((b) => b.operator))].sort()).toEqual(Object.keys(SETUPS).sort());
  });

  it.each(BLOCKS)("diagram $n ($operator)", ({ operator, rows }) => {
    const setup = SETUPS[operator]!;
    const warningValues = Object.fromEntries(
      Object.entries(setup.warnings ?? {}).map(([letter, code]) => [letter, warningWith(code as ReasoningWarningCode)]),
    );
    const values = { ...setup.values, ...warningValues };
    createTestScheduler().run((helpers) => {
      const source = helpers.cold(rows["source"]!, setup.values);
      if (setup.apply === undefined) {
        const pipeline = reasoningPipeline(source, {
          producer: TEST_PRODUCER,
          idFactory: sequentialIds(),
          onWarning: () => {},
        });
        expectPipeline(helpers, pipeline).toBe(
          { events: rows["events"], history: rows["history"], warnings: rows["warnings"] },
          values,
          errorOf(rows["error"]),
        );
        return;
      }
      const warnings = new Subject<ReasoningWarning>();
      const output = setup.apply(source, (w) => warnings.next(w));
      if (rows["warnings"] !== undefined) helpers.expectObservable(warnings).toBe(rows["warnings"], values);
      helpers.expectObservable(output).toBe((rows["output"] ?? rows["history"])!, values, errorOf(rows["error"]));
    });
  });
});
