import { PROTOCOL_VERSION } from "@ag-ui/core";

/** How a producer's `RUN_STARTED.protocolVersion` relates to the version this package implements. */
export type VersionVerdict = "same" | "older" | "newer" | "uninterpretable";

/** `MAJOR.MINOR`, each component a decimal number (R-VER-16). */
const MAJOR_MINOR = /^(\d{1,9})\.(\d{1,9})$/;

const OWN = parse(PROTOCOL_VERSION) ?? [1, 0];

/**
 * Compares a declaration numerically per component (`1.10` > `1.9`, R-VER-16). A value that is not
 * `MAJOR.MINOR` ("draft", "banana", "1.0.3") cannot be compared and is handled like a newer one by
 * the caller (R-VER-16/17).
 */
export function compareProtocolVersion(declared: string): VersionVerdict {
  const version = parse(declared);
  if (version === undefined) return "uninterpretable";
  const [major, minor] = version;
  const order = major !== OWN[0] ? major - OWN[0] : minor - OWN[1];
  return order === 0 ? "same" : order > 0 ? "newer" : "older";
}

function parse(version: string): readonly [number, number] | undefined {
  const match = MAJOR_MINOR.exec(version);
  return match ? [Number(match[1]), Number(match[2])] : undefined;
}
