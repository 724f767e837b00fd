/**
 * `agui-reasoning check` on events nested deeper than the call stack (issue 6, hostile input): the
 * stream is checked as usual; the printing modes (`--json`, `--history`), which cannot print such
 * an event, exit 2 with a message naming it — never "internal error: Maximum call stack size
 * exceeded" — and show no content of the stream while saying so (D-REDACT).
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { runCheck, type CliIo } from "../../src/cli/check";
import { StreamSecrets, redact, redactedValue } from "../../src/cli/redact";

const ROOT = resolve(__dirname, "../..");
const VALUE = "gAAAAA-deep-SECRET-VALUE==";
const THOUGHT = "deep-SECRET-THOUGHT";
const DEPTH = 10_000;

/** `{"a":{"a":…{"leaf":…}…}}` as text: JSON.stringify itself would overflow building it. */
const nestedText = (depth: number, leaf: string): string => `${'{"a":'.repeat(depth)}${leaf}${"}".repeat(depth)}`;

/** Lines of a valid run whose REASONING_MESSAGE_END (event #3, line 4) carries `metadata` nested `depth` levels. */
function deepRun(depth: number): string {
  return [
    `{"type":"RUN_STARTED","threadId":"t1","runId":"r1"}`,
    `{"type":"REASONING_MESSAGE_START","messageId":"m1","role":"reasoning"}`,
    `{"type":"REASONING_MESSAGE_CONTENT","messageId":"m1","delta":${JSON.stringify(THOUGHT)}}`,
    `{"type":"REASONING_MESSAGE_END","messageId":"m1","metadata":${nestedText(depth, `{"encryptedValue":${JSON.stringify(VALUE)}}`)}}`,
    `{"type":"REASONING_ENCRYPTED_VALUE","subtype":"message","entityId":"m1","encryptedValue":${JSON.stringify(VALUE)}}`,
    `{"type":"RUN_FINISHED","threadId":"t1","runId":"r1"}`,
    "",
  ].join("\n");
}

let dir: string;
let files: { deep: string; printable: string };
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "agui-cli-deep-"));
  files = { deep: join(dir, "deep.jsonl"), printable: join(dir, "printable.jsonl") };
  writeFileSync(files.deep, deepRun(DEPTH));
  writeFileSync(files.printable, deepRun(500));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function check(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = "";
  let stderr = "";
  const io: CliIo = {
    stdout: { write: (t: string) => (stdout += t) },
    stderr: { write: (t: string) => (stderr += t), isTTY: false },
    stdin: (async function* () {})(),
  };
  const code = await runCheck(args, io);
  return { code, stdout, stderr };
}

/** What the command says about the deep event: its index, line and depth, nothing of its content. */
const TOO_DEEP = `agui-reasoning: event #3 (line 4) of <file> is nested ${(DEPTH + 2).toLocaleString("en-US")} levels deep, too deep to print with --json or --history; check it without them\n`;

describe("agui-reasoning check on a 10,000-level nested event", () => {
  it.each([[["--json"]], [["--history"]], [["--json", "--show-values"]], [["--history", "--show-values"]]])(
    "hostile nesting: check %j exits 2 naming event #3, not an internal error, and prints nothing else",
    async (flags) => {
      const { code, stdout, stderr } = await check(["check", files.deep, ...flags, "--no-progress"]);
      expect({ code, stdout, stderr }).toEqual({ code: 2, stdout: "", stderr: TOO_DEEP.replace("<file>", files.deep) });
    },
  );

  it("hostile nesting: without --json or --history the stream is checked and reported valid", async () => {
    const { code, stdout, stderr } = await check(["check", files.deep, "--no-progress"]);
    expect(code).toBe(0);
    expect(stderr).toBe("");
    expect(stdout).toContain("✓ valid: 1 run, 0 warnings");
  });

  it("hostile nesting: spawned as users run it, --json exits 2 with the same message", async () => {
    const { code, out } = await new Promise<{ code: number | null; out: string }>((done, fail) => {
      const child = spawn(
        process.execPath,
        ["--import", "tsx", "src/cli/main.ts", "check", files.deep, "--json", "--no-progress"],
        { cwd: ROOT, env: { ...process.env, NO_COLOR: "1" } },
      );
      let out = "";
      child.stdout.on("data", (d: Buffer) => (out += d.toString()));
      child.stderr.on("data", (d: Buffer) => (out += d.toString()));
      child.on("error", fail);
      child.on("close", (code) => done({ code, out }));
      child.stdin.end();
    });
    expect({ code, out }).toEqual({ code: 2, out: TOO_DEEP.replace("<file>", files.deep) });
  }, 60_000);

  it("R-REASON-26: a nested event that can be printed is, with the value deep inside its metadata redacted", async () => {
    const { code, stdout } = await check(["check", files.printable, "--json", "--no-progress"]);
    expect(code).toBe(0);
    expect(stdout).not.toContain(VALUE);
    expect(stdout.split(JSON.stringify(redactedValue(VALUE))).length - 1).toBe(4); // the value event's, the END's metadata, the history message's own and its metadata
    const history = await check(["check", files.printable, "--history", "--no-progress"]);
    expect(history.code).toBe(0);
    expect(history.stdout).not.toContain(VALUE);
    expect(history.stdout.split(redactedValue(VALUE)).length - 1).toBe(2);
  });
});

describe("redaction and the secrets walk are iterative", () => {
  /** Encrypted values only, by key: what `--show-reasoning` without a stream's secrets leaves. */
  const redactValues = <T>(node: T): T => redact(node, { showValues: false, showReasoning: true });
  /** `{ a: { a: … leaf … } }`, `depth` levels above `leaf`. */
  const nested = (depth: number, leaf: unknown): Record<string, unknown> => {
    let node: Record<string, unknown> = leaf as Record<string, unknown>;
    for (let i = 0; i < depth; i++) node = { a: node };
    return node;
  };
  const bottom = (node: unknown): unknown => {
    let at = node as Record<string, unknown>;
    while (typeof at.a === "object" && at.a !== null) at = at.a as Record<string, unknown>;
    return at;
  };

  it("R-REASON-26: a value 100,000 levels down is redacted; the input is untouched and untouched branches keep their identity", () => {
    const sibling = { note: "kept" };
    const input = { list: [sibling, nested(100_000, { encryptedValue: VALUE, other: 1 })] };
    const out = redactValues(input);
    expect(out).not.toBe(input);
    expect(out.list[0]).toBe(sibling);
    expect(bottom(out.list[1])).toEqual({ encryptedValue: redactedValue(VALUE), other: 1 });
    expect(bottom(input.list[1])).toEqual({ encryptedValue: VALUE, other: 1 });
  });

  it("R-REASON-26: a tree without a value is returned as it is, however deep", () => {
    const input = [nested(100_000, { encryptedValue: 5 })];
    expect(redactValues(input)).toBe(input);
  });

  it("hostile nesting: the secrets walk measures every container level, 100,000 deep", () => {
    const depth = (event: unknown): number => new StreamSecrets().collect(event);
    expect([depth("x"), depth({}), depth([[], { a: [1] }]), depth(nested(100_000, {}))]).toEqual([0, 1, 3, 100_001]);
  });
});
