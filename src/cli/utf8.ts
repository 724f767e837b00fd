import { isUtf8 } from "node:buffer";

/**
 * Decodes a byte stream as UTF-8, strictly: a recording that is not UTF-8 is unusable input, never
 * silently repaired with U+FFFD (which changes byte counts and values). A sequence split across two
 * chunks is carried over; the validation is `isUtf8` (native) per chunk, and only on failure is the
 * chunk scanned here, to name the byte offset.
 */
export class StrictUtf8 {
  private carry: Buffer | undefined;
  /** Bytes decoded before the current chunk (the carry included). */
  private offset = 0;

  /** The text of `chunk`; throws naming the offset of the first invalid byte. */
  write(chunk: Buffer): string {
    const bytes = this.carry ? Buffer.concat([this.carry, chunk]) : chunk;
    const cut = incompleteTail(bytes);
    const whole = cut === bytes.length ? bytes : bytes.subarray(0, cut);
    this.carry = cut === bytes.length ? undefined : Buffer.from(bytes.subarray(cut));
    if (!isUtf8(whole)) throw notUtf8(this.offset + firstInvalid(whole));
    this.offset += whole.length;
    return whole.toString("utf8");
  }

  /**
   * The input ended. Whether it ended inside a character: the start of a well-formed sequence is
   * left, as when a recording is cut at a byte count (`head -c`, a size limit) — where it was cut,
   * not bad input. A malformed start is invalid.
   */
  end(): boolean {
    if (this.carry === undefined) return false;
    // Its second byte, when there is one, must be in its lead's range.
    const [lead, second] = this.carry;
    if (second !== undefined && !inSecondRange(lead!, second)) throw notUtf8(this.offset);
    return true;
  }
}

function notUtf8(offset: number): Error {
  return new Error(`not valid UTF-8 at byte ${offset.toLocaleString("en-US")}: the input must be UTF-8 text`);
}

/** Bytes a sequence led by `lead` takes (0: not a valid lead byte). */
function sequenceLength(lead: number): number {
  if (lead < 0x80) return 1;
  if (lead >= 0xc2 && lead <= 0xdf) return 2;
  if (lead >= 0xe0 && lead <= 0xef) return 3;
  if (lead >= 0xf0 && lead <= 0xf4) return 4;
  return 0;
}

/** Where a multi-byte sequence cut by the chunk's end begins (the length when none is cut). */
function incompleteTail(bytes: Uint8Array): number {
  const n = bytes.length;
  for (let i = n - 1; i >= 0 && i >= n - 3; i--) {
    const b = bytes[i]!;
    if ((b & 0xc0) === 0x80) continue; // a continuation byte: look further back
    const need = sequenceLength(b);
    return need > n - i ? i : n;
  }
  return n;
}

/** The second byte's range excludes overlongs (E0, F0), surrogates (ED) and > U+10FFFF (F4). */
function inSecondRange(lead: number, second: number): boolean {
  const low = lead === 0xe0 ? 0xa0 : lead === 0xf0 ? 0x90 : 0x80;
  const high = lead === 0xed ? 0x9f : lead === 0xf4 ? 0x8f : 0xbf;
  return second >= low && second <= high;
}

/** The offset of the first byte that does not start or continue a well-formed sequence (RFC 3629). */
function firstInvalid(bytes: Uint8Array): number {
  for (let i = 0; i < bytes.length;) {
    const b = bytes[i]!;
    const need = sequenceLength(b);
    if (need === 0) return i;
    if (need === 1) {
      i++;
      continue;
    }
    const second = bytes[i + 1];
    if (second === undefined || !inSecondRange(b, second)) return i;
    for (let k = 2; k < need; k++) {
      const c = bytes[i + k];
      if (c === undefined || (c & 0xc0) !== 0x80) return i;
    }
    i += need;
  }
  return bytes.length;
}
