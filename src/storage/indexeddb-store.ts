import type { HistoryStore, HistoryStoreCapabilities } from "./history-store";
import { checkThreadId, historyOfRecord, recordOf } from "./stored-record";
import { quotedId } from "../core/errors";
import type { ReasoningHistory } from "../history/types";
import { optionsOf } from "../core/arguments";

/*
 * The little of the IndexedDB API this store uses, typed here: the package is compiled without the
 * DOM library, and its declarations must not pull it into a Node consumer's program.
 */
interface IdbRequest<T> {
  readonly result: T;
  readonly error: { readonly message: string } | null;
  onsuccess: (() => void) | null;
  onerror: (() => void) | null;
}
interface IdbOpenRequest extends IdbRequest<IdbDatabase> {
  onupgradeneeded: (() => void) | null;
}
interface IdbDatabase {
  readonly version: number;
  readonly objectStoreNames: { contains(name: string): boolean };
  createObjectStore(name: string): unknown;
  transaction(store: string, mode: "readonly" | "readwrite"): IdbTransaction;
  close(): void;
  onversionchange: (() => void) | null;
}
interface IdbTransaction {
  objectStore(name: string): IdbObjectStore;
  readonly error: { readonly message: string } | null;
  oncomplete: (() => void) | null;
  onerror: (() => void) | null;
  onabort: (() => void) | null;
}
interface IdbObjectStore {
  get(key: string): IdbRequest<unknown>;
  put(value: string, key: string): IdbRequest<unknown>;
}
/** The `IDBFactory` (`window.indexedDB`) or anything shaped like it. */
export interface IndexedDbFactory {
  open(name: string): IdbOpenRequest;
}

export interface IndexedDbHistoryStoreOptions {
  /** The database's name (default `"agui-reasoning"`). */
  readonly database?: string;
  /** The object store inside it, created on first open (default `"histories"`). */
  readonly objectStore?: string;
  /** The factory to open it with (default `globalThis.indexedDB`). */
  readonly indexedDB?: IndexedDbFactory;
  /** Whether it may keep encrypted values (default true); see `KeyValueHistoryStoreOptions.encryptedValues`. */
  readonly encryptedValues?: boolean;
}

const STORE = "IndexedDbHistoryStore";

/**
 * A `HistoryStore` in the browser's IndexedDB, where chat UIs keep their threads: one record per
 * thread (stored-record.ts: the exact text `serializeHistory` writes, read all or nothing), put in one
 * transaction, so a thread holds the old record or the new one. `save` resolves once it is committed.
 * The database is opened on first use; `close()` closes it.
 */
export class IndexedDbHistoryStore implements HistoryStore {
  readonly capabilities: HistoryStoreCapabilities;
  private readonly database: string;
  private readonly objectStore: string;
  private readonly factory: IndexedDbFactory | undefined;
  private opened: Promise<IdbDatabase> | undefined;

  constructor(options?: IndexedDbHistoryStoreOptions) {
    options = optionsOf(options, "IndexedDbHistoryStore");
    this.database = options.database ?? "agui-reasoning";
    this.objectStore = options.objectStore ?? "histories";
    this.factory = options.indexedDB ?? (globalThis as { indexedDB?: IndexedDbFactory }).indexedDB;
    this.capabilities = { encryptedValues: options.encryptedValues ?? true };
  }

  async save(threadId: string, history: ReasoningHistory): Promise<void> {
    checkThreadId(STORE, threadId);
    const record = recordOf(STORE, this.capabilities, history);
    const tx = (await this.open()).transaction(this.objectStore, "readwrite");
    tx.objectStore(this.objectStore).put(record, threadId);
    await new Promise<void>((resolve, reject) => {
      tx.oncomplete = () => resolve();
      tx.onerror = tx.onabort = () => reject(idbError(`saving thread ${quotedId(threadId)}`, tx.error));
    });
  }

  async load(threadId: string): Promise<ReasoningHistory | undefined> {
    checkThreadId(STORE, threadId);
    const tx = (await this.open()).transaction(this.objectStore, "readonly");
    const record = await settled(
      tx.objectStore(this.objectStore).get(threadId),
      `loading thread ${quotedId(threadId)}`,
    );
    return record === undefined ? undefined : historyOfRecord(STORE, threadId, record);
  }

  /** Closes the database connection (the next `save` or `load` opens it again). */
  async close(): Promise<void> {
    const opened = this.opened;
    this.opened = undefined;
    if (opened !== undefined) (await opened).close();
  }

  private open(): Promise<IdbDatabase> {
    this.opened ??= this.connect().catch((error: unknown) => {
      this.opened = undefined;
      throw error;
    });
    return this.opened;
  }

  private async connect(): Promise<IdbDatabase> {
    if (this.factory === undefined || typeof this.factory.open !== "function")
      throw new TypeError(`agui-reasoning: ${STORE}: no IndexedDB here; pass options.indexedDB`);
    // At its current version: a database this store made is at 1, one the app shares with it at the app's.
    const request = this.factory.open(this.database);
    request.onupgradeneeded = () => {
      if (!request.result.objectStoreNames.contains(this.objectStore))
        request.result.createObjectStore(this.objectStore);
    };
    const name = JSON.stringify(this.database);
    const db = await settled(request, `opening database ${name}`);
    if (!db.objectStoreNames.contains(this.objectStore)) {
      db.close();
      throw new TypeError(
        `agui-reasoning: ${STORE}: database ${name} (version ${db.version}) has no object store ` +
          `${JSON.stringify(this.objectStore)}: the store creates it only in a database it creates; give it a ` +
          `database of its own (options.database, default "agui-reasoning"), or create the object store in your database's upgrade`,
      );
    }
    // Another tab upgrading the database: let it, and open again on next use.
    db.onversionchange = () => {
      db.close();
      this.opened = undefined;
    };
    return db;
  }
}

function settled<T>(request: IdbRequest<T>, doing: string): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(idbError(doing, request.error));
  });
}

function idbError(doing: string, cause: { readonly message: string } | null): Error {
  const message = `agui-reasoning: ${STORE}: ${doing} failed${cause ? `: ${cause.message}` : ""}`;
  return new Error(message, { cause });
}
