import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { mockAgentServer, type MockAgentServer } from "../../src/testing";
import { ev } from "../../src/testing";
import { compileBlocks, compilerOptions, docBlocks, readDocBlocks, type DocBlock } from "./doc-code";

const ROOT = resolve(__dirname, "../..");
const blocks = readDocBlocks(ROOT);
const compiled = blocks.filter((b) => b.kind !== "fragment");
const runnable = blocks.filter((b) => b.kind === "runnable");

// The markers, and blocks that show a broken block is reported (compiled with the docs' own, in one program).
const SELF_TEST = [
  "```ts",
  "const a: number = 1;",
  "```",
  "```ts fragment",
  "events$.subscribe();",
  "```",
  "```ts runnable",
  "const b: string = 2;",
  "```",
].join("\n");
const selfTest = docBlocks(SELF_TEST, "x.md");

let dir: string;
let errors: Map<DocBlock, string[]>;

beforeAll(() => {
  // Inside the repository (gitignored), so that the blocks resolve rxjs, @ag-ui/* … from its node_modules.
  mkdirSync(join(ROOT, ".tmp"), { recursive: true });
  dir = mkdtempSync(join(ROOT, ".tmp", "doc-code-"));
  errors = compileBlocks(ROOT, dir, [...compiled, selfTest[0]!, selfTest[2]!]);
}, 120_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("docs: every TypeScript block of README.md and docs/*.md compiles under --strict against the package", () => {
  it("finds the blocks, the README's usage among the runnable ones", () => {
    expect(compiled.length).toBeGreaterThanOrEqual(5);
    expect(runnable.map((b) => b.where)).toEqual(expect.arrayContaining([expect.stringMatching(/^README\.md:/)]));
  });

  it.each(compiled.map((b) => [b.where, b] as const))("%s compiles", (_where, block) => {
    expect(errors.get(block)).toEqual([]);
  });

  it("reads the markers, and a broken block is reported with its line", () => {
    expect(selfTest.map((b) => [b.where, b.kind])).toEqual([
      ["x.md:1", "module"],
      ["x.md:4", "fragment"],
      ["x.md:7", "runnable"],
    ]);
    expect(errors.get(selfTest[0]!)).toEqual([]);
    expect(errors.get(selfTest[2]!)).toEqual([expect.stringMatching(/^line 1 of the block: TS2322 /)]);
    expect(() => docBlocks("```ts maybe\n```", "y.md")).toThrow(/y\.md:1: unknown marker "maybe"/);
  });
});

describe("docs: the runnable blocks run", () => {
  let server: MockAgentServer;
  const run = (id: string, value: string) => [
    ev.runStarted(id),
    ev.reasoningChunk(`m-${id}`, "Let me think."),
    ev.encryptedValue("message", `m-${id}`, value),
    // One warning per run (a value naming no message, UNKNOWN_ENTITY): the README prints it once (D-WARN-SINK).
    ev.encryptedValue("message", `nowhere-${id}`, value),
    ev.textChunk(`a-${id}`, "Done."),
    ev.runFinished(id),
  ];

  beforeAll(async () => {
    // Request n gets run n, whose reasoning message carries the encrypted value `opaque-n`.
    server = await mockAgentServer((request) => ({ events: run(`r${request.index}`, `opaque-${request.index}`) }));
  });
  afterAll(() => server.close());

  it.each(runnable.map((b) => [b.where, b] as const))(
    "%s runs against a local agent, exits 0 and prints each warning once (D-WARN-SINK)",
    async (_where, block) => {
      const file = join(dir, `${block.where.replace(/[^\w]+/g, "_")}.mts`);
      const tsconfig = join(dir, "tsconfig.json");
      writeFileSync(
        tsconfig,
        JSON.stringify({
          compilerOptions: {
            baseUrl: ROOT,
            paths: compilerOptions(ROOT).paths,
          },
        }),
      );
      const before = server.requests.length;
      const { stdout, stderr } = await promisify(execFile)(
        join(ROOT, "node_modules/.bin/tsx"),
        ["--tsconfig", tsconfig, file],
        { cwd: ROOT, env: { ...process.env, AGENT_URL: server.url } },
      );
      expect(stdout.length).toBeGreaterThan(0);
      if (block.where.startsWith("README.md")) {
        // Two turns: the second request carries the first turn's encrypted value, byte for byte.
        expect(server.requests.length - before).toBe(2);
        expect(JSON.stringify((await server.request(before + 1)).json)).toContain(
          `"encryptedValue":"opaque-${before}"`,
        );
        // D-WARN-SINK: its warnings$ subscriber prints each warning, and nothing prints it a second time.
        expect(stderr.match(/UNKNOWN_ENTITY/g)).toHaveLength(2);
      }
    },
    60_000,
  );
});
