/**
 * Golden files of the human report of `agui-reasoning check` (issue 14): a dozen and more varied
 * recordings — violations of each family, legacy streams, snapshots, subagents, real producers'
 * streams — so that a change of wording, a count or a location shows as a diff. Regenerate with
 * `UPDATE_GOLDEN=1 npx jest test/integration/cli-golden.test.ts` and read the diff before committing.
 */
import { existsSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { check } from "./cli-support";

const ROOT = resolve(__dirname, "../..");
const FIXTURES = "test/fixtures/cli";
const GOLDEN = join(ROOT, FIXTURES, "golden");
const UPDATE = process.env.UPDATE_GOLDEN === "1";

/** Every recording, by its path relative to the repository (the label the report prints). */
const recordings = [
  ...readdirSync(join(ROOT, "examples/recorded"))
    .filter((f) => f.endsWith(".jsonl"))
    .map((f) => `examples/recorded/${f}`),
  ...readdirSync(join(ROOT, FIXTURES))
    .filter((f) => /\.(jsonl|sse|json)$/.test(f))
    .map((f) => `${FIXTURES}/${f}`),
].sort();

/** Extra variants: the history (redacted), and the SARIF log. */
const variants: [string, string[]][] = [
  ...recordings.map((r): [string, string[]] => [r, []]),
  [`${FIXTURES}/value-under-other-keys.jsonl`, ["--history"]],
  ["examples/recorded/two-runs-with-snapshot.jsonl", ["--history"]],
  // The machine formats of issue 22: SARIF for a violation and for a valid legacy stream's warnings.
  ["examples/recorded/broken-orphan-content.jsonl", ["--format", "sarif"]],
  ["examples/recorded/legacy-thinking-0.0.45.jsonl", ["--format", "sarif"]],
  // The warning gates: a lossy UNKNOWN_ENTITY fails --fail-on-lossy; seven upcast warnings fail --max-warnings 0.
  [`${FIXTURES}/value-under-other-keys.jsonl`, ["--fail-on-lossy"]],
  ["examples/recorded/legacy-thinking-0.0.45.jsonl", ["--max-warnings", "0"]],
];

/** Ids the pipeline mints (legacy THINKING_* streams carry none) differ per run: numbered in order of appearance. */
function normalised(report: string): string {
  const minted = new Map<string, string>();
  return report.replace(/[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}/g, (uuid) => {
    if (!minted.has(uuid)) minted.set(uuid, `<minted-id-${minted.size + 1}>`);
    return minted.get(uuid)!;
  });
}

const goldenName = (recording: string, flags: string[]): string =>
  `${recording.replace(/^.*\//, "")}${flags.join("")}.txt`;

const cwd = process.cwd();
beforeAll(() => process.chdir(ROOT));
afterAll(() => process.chdir(cwd));

describe("golden human reports", () => {
  it("covers a dozen and more recordings of every kind", () => {
    expect(recordings.length).toBeGreaterThanOrEqual(12);
  });

  it.each(variants)("R-PROC-19 D-REDACT: check %s %j matches its golden report", async (recording, flags) => {
    const { code, stdout, stderr } = await check(["check", recording, "--no-progress", ...flags]);
    expect(stderr).toBe("");
    const actual = normalised(`$ agui-reasoning check ${[recording, ...flags].join(" ")}\n${stdout}(exit ${code})\n`);
    const path = join(GOLDEN, goldenName(recording, flags));
    if (UPDATE || !existsSync(path)) {
      writeFileSync(path, actual);
      if (!UPDATE) throw new Error(`no golden file yet: wrote ${path}; read it, then run again`);
    }
    expect(actual).toBe(readFileSync(path, "utf8"));
  });

  it("every golden file belongs to a recording (none is left over from a removed one)", () => {
    const expected = new Set(variants.map(([r, f]) => goldenName(r, f)));
    expect(readdirSync(GOLDEN).filter((f) => !expected.has(f))).toEqual([]);
  });
});
