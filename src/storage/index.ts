/**
 * agui-reasoning/storage — `HistoryStore` adapters (docs/resilience.md): IndexedDB for the browser,
 * and one over any string store (localStorage, Redis, a SQL table). A subpath of its own, so an app
 * that does not use them bundles none of their code. Each stores exactly what `serializeHistory`
 * writes and reads it back with `parseHistory`.
 */
export { IndexedDbHistoryStore, type IndexedDbFactory, type IndexedDbHistoryStoreOptions } from "./indexeddb-store";
export { KeyValueHistoryStore, type KeyValueHistoryStoreOptions, type StringStore } from "./key-value-store";
