import { truncateId } from "../core/errors";

/** An id (or role, or owner) quoted for a detail sentence; long ids are truncated. */
export function quote(id: string): string {
  return `'${truncateId(id)}'`;
}

/** Who owns an item, for a detail sentence. */
export function ownerText(owner: string | undefined): string {
  return owner === undefined ? "the parent agent" : `subagent ${quote(owner)}`;
}
