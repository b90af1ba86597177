/**
 * What the list needs from an account's columns in memory (conversation-stats/stats-memory.ts) to read a page of a
 * substring search without finding every match again: the total, and the sort keys of the page's rows. The rows
 * themselves (ids, and every field) are then read by those keys, a few index lookups, in the same snapshot.
 */
import type { QueryRunner } from 'typeorm';
import type { ConversationListFilter } from './list-conversations.params.js';

/** A row's place in the list: its start (microseconds since the epoch) and, in duration order, its duration. */
export interface PageKey {
  start_us: number;
  duration: number;
}

export interface PageKeys {
  /** Every conversation the filter matches. */
  total: number;
  /** The page's rows' keys, each once (rows can share one). */
  keys: PageKey[];
  /**
   * The page starts this many rows into those with its keys, in the list's order: the rows that share the first
   * row's key but come before it (PostgreSQL orders them by id, which the columns do not hold).
   */
  skip: number;
}

export interface PagesInMemory {
  /**
   * Calls `read` with the page's keys within the snapshot the columns are brought up to, and answers what it
   * answers; undefined (and nothing called) when the columns do not answer this list: the account is not held
   * (yet), or the list is not a search in start-time or duration order on filters the columns hold.
   */
  withPageKeys<T>(accountId: string, f: ConversationListFilter, read: (db: QueryRunner, page: PageKeys) => Promise<T>): Promise<T | undefined>;
}
