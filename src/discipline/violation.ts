import { protocolError, truncateId } from "../core/errors";

/** A verification failure about `event` (the digest's FAIL): the shared `protocolError`. */
export const violation = protocolError;

/** An id (or role, or owner) quoted for a detail sentence; long ids are truncated. */
export function quote(id: string): string {
  return `'${truncateId(id)}'`;
}

/** Who owns an item, for a detail sentence. */
export function ownerText(owner: string | undefined): string {
  return owner === undefined ? "the parent agent" : `subagent ${quote(owner)}`;
}
