import { truncateId, quotedId } from "../core/errors";

/**
 * Producer identities (D-ISSUER, D-IDENTITY): the one place saying whether two identities name the
 * same producer, and how one is shown. An absolute URL compares by its WHATWG serialization without
 * the fragment, so a service restarted under another spelling of its URL keeps its values; any other
 * string compares exactly. Different hosts (`localhost`, `127.0.0.1`) stay different producers: which
 * hosts are one service is not something a consumer can know.
 */

/** What two identities of one producer have in common. */
export function identityKey(identity: string): string {
  const url = parsedUrl(identity);
  if (url === undefined) return identity;
  url.hash = "";
  return `url:${url.href}`;
}

/** Whether `recorded` (an issuer record's identity, `undefined` for none) names `producer`. */
export function sameProducer(recorded: string | undefined, producer: string): boolean {
  if (recorded === undefined) return false;
  return recorded === producer || identityKey(recorded) === identityKey(producer);
}

/**
 * An identity as a warning may show it: a URL without userinfo, query and fragment (they may carry
 * credentials), any other string as it is, cut to the length ids are shown at.
 */
export function shownIdentity(identity: string | undefined): string {
  if (identity === undefined) return "none";
  const url = parsedUrl(identity);
  if (url === undefined) return quotedId(identity);
  url.username = "";
  url.password = "";
  url.search = "";
  url.hash = "";
  return truncateId(url.href);
}

function parsedUrl(identity: string): URL | undefined {
  try {
    return new URL(identity);
  } catch {
    return undefined;
  }
}
