/**
 * Splits text arriving in chunks into lines, in time linear in the input: only the new chunk is
 * searched for line breaks, and the parts of an unfinished line are kept in a list and joined once
 * when it ends (a 200 MB line read in 64 KB chunks was searched and copied again per chunk).
 *
 * `cr`: a lone CR also ends a line (SSE, WHATWG HTML § 9.2.6: CRLF, LF or CR); a CRLF split across
 * two chunks is still one break. Without it only LF does (JSON Lines; a CR before it is left to
 * the caller, which trims).
 */
export class LineSplitter {
  private parts: string[] = [];
  // The last chunk ended on a CR (cr mode): an LF opening the next chunk belongs to it.
  private afterCr = false;

  constructor(private readonly cr: boolean) {}

  /**
   * Feeds `text`; `onLine` gets each completed line (without its break) and returns `false` to
   * stop (the rest of `text` is dropped).
   */
  push(text: string, onLine: (line: string) => unknown): void {
    let start = 0;
    if (this.afterCr && text.length > 0) {
      this.afterCr = false;
      if (text.charCodeAt(0) === 0x0a) start = 1;
    }
    // cr mode: the next CR and LF at or after `start`, each searched again only once passed.
    let lf = -2;
    let cr = -2;
    for (;;) {
      let end: number;
      if (!this.cr) end = text.indexOf("\n", start);
      else {
        if (lf !== -1 && lf < start) lf = text.indexOf("\n", start);
        if (cr !== -1 && cr < start) cr = text.indexOf("\r", start);
        end = cr < 0 ? lf : lf < 0 ? cr : Math.min(cr, lf);
      }
      if (end < 0) break;
      const piece = text.slice(start, end);
      let line = piece;
      if (this.parts.length > 0) {
        line = this.parts.join("") + piece;
        this.parts = [];
      }
      start = end + 1;
      if (this.cr && text.charCodeAt(end) === 0x0d) {
        if (start === text.length) this.afterCr = true;
        else if (text.charCodeAt(start) === 0x0a) start++;
      }
      if (onLine(line) === false) return;
    }
    if (start < text.length) this.parts.push(start === 0 ? text : text.slice(start));
  }

  /** The unfinished last line (the input ended without a break), or `undefined` when there is none. */
  end(): string | undefined {
    if (this.parts.length === 0) return undefined;
    const line = this.parts.join("");
    this.parts = [];
    return line;
  }
}
