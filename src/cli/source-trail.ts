/** How many of the latest source events' types are remembered: a failure names one of the last few. */
const TYPES_KEPT = 256;

/**
 * The field that names the item a chunk continues, per chunk type. A comparison, not a lookup in a
 * record: keying an object by the type string a `JSON.parse` just made costs a string-table search
 * per event.
 */
function chunkIdField(type: string): string | undefined {
  if (type === "REASONING_MESSAGE_CHUNK" || type === "TEXT_MESSAGE_CHUNK") return "messageId";
  return type === "TOOL_CALL_CHUNK" ? "toolCallId" : undefined;
}

/**
 * What the source said, as far as explaining a failure needs it: the type each recent source event
 * had (a failure on an event the pipeline synthesized from a chunk carries the synthesized type; the
 * report names the chunk the user wrote), and the ids the current run's chunks named (an explicit
 * event for such an id mixes the two forms, R-STREAM-9).
 */
export class SourceTrail {
  private readonly types: string[] = new Array<string>(TYPES_KEPT);
  private count = 0;
  private chunkIds = new Set<string>();

  /**
   * The next raw source event (index = events seen so far) and its `rawType`, read once by the
   * caller for every observer: a property read of a parsed event, of one of dozens of shapes, costs
   * about as much as what each observer then does with it (issue 22).
   */
  observe(raw: unknown, type: unknown): void {
    const name = typeof type === "string" ? type : "<no type>";
    this.types[this.count % TYPES_KEPT] = name;
    this.count++;
    if (name === "RUN_STARTED") this.chunkIds = new Set();
    const field = chunkIdField(name);
    const id = field !== undefined ? (raw as Record<string, unknown>)[field] : undefined;
    if (typeof id === "string") this.chunkIds.add(id);
  }

  /** The type of source event `index`, when it is recent enough to be remembered. */
  typeAt(index: number): string | undefined {
    if (index < 0 || index >= this.count || index < this.count - TYPES_KEPT) return undefined;
    return this.types[index % TYPES_KEPT];
  }

  /** Whether a chunk of the current run named `id`. */
  chunked(id: string): boolean {
    return this.chunkIds.has(id);
  }
}
