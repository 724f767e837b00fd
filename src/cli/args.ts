/** What `agui-reasoning check` was asked to do. */
export interface CheckArgs {
  /** A recorded stream: a path, or `-` for stdin. Exclusive with `url`. */
  readonly file?: string;
  /** A live agent endpoint, run once through a real `HttpAgent`. */
  readonly url?: string;
  /** A `RunAgentInput` JSON file for `--url` (defaults fill what it leaves out). */
  readonly input?: string;
  /** One JSON object on stdout instead of the human report. */
  readonly json: boolean;
  /** Include the derived history in the human report. */
  readonly history: boolean;
  /** Print encrypted values instead of their byte lengths. */
  readonly showValues: boolean;
  /** No progress line on stderr. */
  readonly progress: boolean;
}

/** A usage problem: the message is printed with the usage text, and the exit code is 2. */
export class UsageError extends Error {
  override readonly name = "UsageError";
}

export const USAGE = `Usage:
  agui-reasoning check <file|->  [--json] [--history] [--show-values] [--no-progress]
  agui-reasoning check --url <endpoint> [--input run-input.json] [--json] [--history] [--show-values]

Checks an AG-UI 1.0 event stream: THINKING_* upcast, schema enforcement, chunk expansion,
span/message discipline, encrypted-value routing and the derived history.

  <file|->        a recorded stream: JSON Lines, a JSON array, or raw SSE (data: frames),
                  detected automatically; - reads stdin
  --url <url>     run a live agent once through an HttpAgent (needs @ag-ui/client installed)
  --input <file>  the RunAgentInput to POST with --url (threadId, runId, messages… default)
  --json          print one JSON object: { outcome, error, warnings, events, history }
  --history       add the derived history to the human report
  --show-values   print encrypted values (default: count and byte length only)
  --no-progress   no progress line on stderr

Exit codes: 0 valid, 1 protocol violation, 2 usage error or unreadable input.`;

/** Parses `check …` arguments (argv without the node binary and script). */
export function parseArgs(argv: readonly string[]): CheckArgs | "help" {
  const rest = [...argv];
  if (rest.length === 0 || rest[0] === "--help" || rest[0] === "-h" || rest[0] === "help") return "help";
  const command = rest.shift();
  if (command !== "check") throw new UsageError(`unknown command ${JSON.stringify(command)} (expected "check")`);

  let file: string | undefined;
  let url: string | undefined;
  let input: string | undefined;
  const flags = { json: false, history: false, showValues: false, progress: true };
  while (rest.length > 0) {
    const arg = rest.shift()!;
    switch (arg) {
      case "--help":
      case "-h":
        return "help";
      case "--json":
        flags.json = true;
        break;
      case "--history":
        flags.history = true;
        break;
      case "--show-values":
        flags.showValues = true;
        break;
      case "--no-progress":
        flags.progress = false;
        break;
      case "--url":
        url = value(arg, rest);
        break;
      case "--input":
        input = value(arg, rest);
        break;
      default:
        if (arg.startsWith("--")) throw new UsageError(`unknown option ${arg}`);
        if (file !== undefined) throw new UsageError(`one input at a time (got ${JSON.stringify(file)} and ${JSON.stringify(arg)})`);
        file = arg;
    }
  }
  if (url !== undefined && file !== undefined) throw new UsageError("give either a file or --url, not both");
  if (url === undefined && file === undefined) throw new UsageError("nothing to check: give a file, - for stdin, or --url");
  if (input !== undefined && url === undefined) throw new UsageError("--input only goes with --url");
  if (url !== undefined && !/^https?:\/\//.test(url)) throw new UsageError(`--url needs an http(s) URL, got ${JSON.stringify(url)}`);
  return { file, url, input, ...flags };
}

function value(option: string, rest: string[]): string {
  const v = rest.shift();
  if (v === undefined || v.startsWith("--")) throw new UsageError(`${option} needs a value`);
  return v;
}
