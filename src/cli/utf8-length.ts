/**
 * The UTF-8 byte length of `text`, as `Buffer.byteLength` counts it (a lone surrogate is the 3 bytes
 * of U+FFFD), without Node's `Buffer`: the report code also runs in `agui-reasoning/testing`.
 */
export function utf8Length(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      n += 4;
      i++;
    } else n += 3;
  }
  return n;
}
