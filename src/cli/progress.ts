import type { CliIo } from "./check";

/** On a terminal the line is redrawn at most this often… */
const REDRAW_MS = 200;
/** …once the input proved long (either bound). */
const LONG_AFTER_MS = 1_000;
const LONG_AFTER_EVENTS = 10_000;
/** Without a terminal, one line per this many events. */
const LINE_EVERY = 100_000;

/**
 * The progress line shown while a long file or a live stream is read: redrawn in place on a
 * terminal, one line per 100,000 events otherwise. Silent on short inputs.
 */
export class Progress {
  // When reading started, and when the line was last drawn (terminal only).
  private readonly started = Date.now();
  private drawnAt = 0;
  // Whether a terminal line is on screen and must be cleared.
  private shown = false;
  // Non-terminal: the next event count that prints a line.
  private nextLine = LINE_EVERY;

  constructor(
    // stderr, so stdout stays clean for `--json`.
    private readonly sink: CliIo["stderr"],
    private readonly enabled: boolean,
  ) {}

  update(events: number, bytes: number | undefined): void {
    if (!this.enabled) return;
    if (!this.sink.isTTY) {
      while (events >= this.nextLine) {
        this.sink.write(`agui-reasoning: ${this.nextLine.toLocaleString("en-US")} events read…\n`);
        this.nextLine += LINE_EVERY;
      }
      return;
    }
    const now = Date.now();
    if (now - this.drawnAt < REDRAW_MS) return;
    if (events < LONG_AFTER_EVENTS && now - this.started < LONG_AFTER_MS) return;
    this.drawnAt = now;
    this.shown = true;
    const size = bytes === undefined ? "" : ` (${(bytes / 1_048_576).toFixed(1)} MB)`;
    this.sink.write(`\r\x1b[Kagui-reasoning: ${events.toLocaleString("en-US")} events read${size}…`);
  }

  /** Clears the terminal line before the report is printed. */
  done(): void {
    if (this.shown) this.sink.write("\r\x1b[K");
    this.shown = false;
  }
}
