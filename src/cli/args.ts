const FORMATS = ["human", "json", "github", "junit", "sarif"] as const;
/** How the result is printed. */
export type OutputFormat = (typeof FORMATS)[number];

/** What `agui-reasoning check` was asked to do: a field per option of `USAGE`. */
export interface CheckArgs {
  /** A path, or `-` for stdin; exclusive with `url`. */
  readonly file?: string;
  readonly url?: string;
  /** The `RunAgentInput` file for `--url` (`--input`). */
  readonly input?: string;
  readonly accept: "sse" | "proto";
  readonly format: OutputFormat;
  readonly history: boolean;
  readonly showValues: boolean;
  readonly showReasoning: boolean;
  readonly allowEmpty: boolean;
  /** `false`: `--no-progress`. */
  readonly progress: boolean;
  readonly maxWarnings: number | undefined;
  readonly failOnLossy: boolean;
}

/** A usage problem: the message is printed with the usage text, and the exit code is 2. */
export class UsageError extends Error {
  override readonly name = "UsageError";
}

export const USAGE = `Usage:
  agui-reasoning check <file|-> [options]
  agui-reasoning check --url <endpoint> [--input run-input.json] [options]
  agui-reasoning --version | --help

Checks an AG-UI 1.0 event stream: THINKING_* upcast, schema enforcement, chunk expansion,
span/message discipline, encrypted-value routing and the derived history.

Input (the format is detected from the first bytes):
  <file>          JSON Lines (one event per line), a JSON array of events, a JSON document
                  {"events": [...]} or {"stream": [...]} (a conformance fixture), or raw SSE
                  (data: frames)
  -               the same, read from stdin
  --url <url>     run a live agent once through an HttpAgent (needs @ag-ui/client installed);
                  the reply must be an event stream: text/event-stream (SSE) or
                  application/vnd.ag-ui.event+proto (protobuf)
  --input <file>  the RunAgentInput to POST with --url (threadId, runId, messages… default)
  --accept <t>    the transport --url asks for: sse (default) or proto

Options:
  --format <f>    human (default), json, github (workflow annotations), junit (XML, one test
                  case per run) or sarif (SARIF 2.1.0, for code scanning)
  --json          same as --format json: one JSON object (schema: schema/check-result.v1.json)
  --history       add the derived history to the human report
  --show-values   print encrypted values (default: their byte length only)
  --show-reasoning  print reasoning text in --json and --history (default: its length only)
  --allow-empty   a stream without any run passes (default: it fails with NO_RUN)
  --max-warnings <n>  fail (exit 1) a valid stream with more than n warnings; 0 fails on any
                  (default: warnings never fail)
  --fail-on-lossy fail (exit 1) a valid stream with a lossy warning (a value or content lost)
  --no-progress   no progress line on stderr
  --version       print the version
  -h, --help      this text

Examples:
  agui-reasoning check recording.jsonl
  agui-reasoning check - < recording.sse
  agui-reasoning check fixture.json --json > result.json
  agui-reasoning check --url http://localhost:8000/agent --input run-input.json
  agui-reasoning check --url http://localhost:8000/agent --accept proto
  agui-reasoning check recording.jsonl --format github      # in a GitHub Actions step
  agui-reasoning check recording.jsonl --format junit > junit.xml
  agui-reasoning check recording.jsonl --format sarif > agui.sarif

Exit codes: 0 valid, 1 protocol violation (or no run, or --max-warnings / --fail-on-lossy), 2 usage error, unreadable input or a
reply that is not an event stream.`;

/** The options without a value, and what each sets. */
const SWITCHES = new Map<string, Partial<CheckArgs>>([
  ["--json", { format: "json" }],
  ["--history", { history: true }],
  ["--show-values", { showValues: true }],
  ["--show-reasoning", { showReasoning: true }],
  ["--allow-empty", { allowEmpty: true }],
  ["--no-progress", { progress: false }],
  ["--fail-on-lossy", { failOnLossy: true }],
]);

/** The options with a value, and what each sets once its value is checked. */
const VALUED = new Map<string, (value: string) => Partial<CheckArgs>>([
  [
    "--format",
    (f) => {
      if (!(FORMATS as readonly string[]).includes(f))
        throw new UsageError(`--format must be one of ${FORMATS.join(", ")} (got ${JSON.stringify(f)})`);
      return { format: f as OutputFormat };
    },
  ],
  [
    "--max-warnings",
    (n) => {
      if (!/^\d+$/.test(n)) throw new UsageError(`--max-warnings needs a whole number (got ${JSON.stringify(n)})`);
      return { maxWarnings: Number(n) };
    },
  ],
  ["--url", (url) => ({ url })],
  ["--input", (input) => ({ input })],
  [
    "--accept",
    (t) => {
      if (t !== "sse" && t !== "proto")
        throw new UsageError(`--accept must be sse or proto (got ${JSON.stringify(t)})`);
      return { accept: t };
    },
  ],
]);

/** Parses `check …` arguments (argv without the node binary and script). */
export function parseArgs(argv: readonly string[]): CheckArgs | "help" | "version" {
  const rest = [...argv];
  if (rest.length === 0) throw new UsageError("no command given");
  if (rest[0] === "--help" || rest[0] === "-h" || rest[0] === "help") return "help";
  if (rest[0] === "--version" || rest[0] === "-v") return "version";
  const command = rest.shift();
  if (command !== "check") throw new UsageError(`unknown command ${JSON.stringify(command)} (expected "check")`);

  const given: { -readonly [K in keyof CheckArgs]?: CheckArgs[K] } = {};
  while (rest.length > 0) {
    const arg = rest.shift()!;
    if (arg === "--help" || arg === "-h") return "help";
    if (arg === "--version") return "version";
    const valued = VALUED.get(arg);
    const set = valued !== undefined ? valued(value(arg, rest)) : SWITCHES.get(arg);
    if (set !== undefined) {
      if (set.format !== undefined && given.format !== undefined && set.format !== given.format)
        throw new UsageError(`one output format at a time (got ${given.format} and ${set.format})`);
      Object.assign(given, set);
      continue;
    }
    if (arg.startsWith("--")) throw new UsageError(`unknown option ${arg}`);
    if (given.file !== undefined)
      throw new UsageError(`one input at a time (got ${JSON.stringify(given.file)} and ${JSON.stringify(arg)})`);
    given.file = arg;
  }
  const { file, url, format } = given;
  if (url !== undefined && file !== undefined) throw new UsageError("give either a file or --url, not both");
  if (url === undefined && file === undefined)
    throw new UsageError("nothing to check: give a file, - for stdin, or --url");
  if (given.input !== undefined && url === undefined) throw new UsageError("--input only goes with --url");
  if (given.accept !== undefined && url === undefined) throw new UsageError("--accept only goes with --url");
  if (url !== undefined && !/^https?:\/\//.test(url))
    throw new UsageError(`--url needs an http(s) URL, got ${JSON.stringify(url)}`);
  // --json always holds the history; the CI formats hold none.
  if (given.history && (format === "github" || format === "junit" || format === "sarif"))
    throw new UsageError(`--history goes with the human report, not --format ${format}`);
  return { ...DEFAULTS, ...given };
}

/** What an option left out means. */
const DEFAULTS: CheckArgs = {
  accept: "sse",
  format: "human",
  history: false,
  showValues: false,
  showReasoning: false,
  allowEmpty: false,
  progress: true,
  maxWarnings: undefined,
  failOnLossy: false,
};

function value(option: string, rest: string[]): string {
  const v = rest.shift();
  if (v === undefined || v.startsWith("--")) throw new UsageError(`${option} needs a value`);
  return v;
}
