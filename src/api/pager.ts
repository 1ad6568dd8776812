/**
 * The one pager: every listing of pages (the CLI's --all, employees sync, `assess api --paginate`, the SDK's
 * iterators, the MCP resource of tests) goes through `paginate`. It ends, whatever the service answers:
 * - on the last page (readPage: hasNextPage false, totalPages, a total reached, a short or empty page);
 * - when a page adds no record not already listed (a service that ignores the page number and answers the
 *   same records, in any order);
 * - when as many records as the service announced are listed;
 * - after MAX_PAGES pages (a service that keeps answering new records).
 * Each of the last three says why with a warning. Records listed twice (pages shifted by a record added
 * meanwhile) come out once. Memory stays bounded: the pager remembers the last MAX_REMEMBERED records only.
 */
import { createHash } from "node:crypto";
import { field, isRecord } from "../fields.js";
import type { Page } from "./read.js";

/** The most pages one listing follows: 1,000,000 records at 100 a page. */
export const MAX_PAGES = 10_000;
/** The most record identities the pager keeps to tell a new record from one already listed (~10 MB). */
export const MAX_REMEMBERED = 100_000;
/** The fields that identify a record of the service's lists, in the order they are looked for. */
const ID_FIELDS = ["testInvitationId", "testLinkId", "employeeId", "testId", "id"];

export interface PagingOptions {
  /** The first page (default 1). */
  first?: number;
  /** Told why paging stopped early (the service repeats itself, announced fewer, or the cap). */
  warn?: (message: string) => void;
  /** At most this many pages (default and ceiling MAX_PAGES). */
  maxPages?: number;
  /**
   * Pages requested at once while the count the service announced says they exist (employees sync: 4); past it,
   * and without a count, one after the other.
   */
  concurrency?: number;
}

/** Pages of records not listed before, until one of the ends above. */
export async function* paginate<T>(
  fetchPage: (page: number) => Promise<Page<T>>,
  { first = 1, warn, maxPages = MAX_PAGES, concurrency = 1 }: PagingOptions = {},
): AsyncGenerator<T[]> {
  const cap = Math.max(1, Math.min(maxPages, MAX_PAGES));
  const seen = new Remembered(MAX_REMEMBERED);
  const queue: Array<{ page: number; answer: Promise<Page<T>> }> = [];
  let next = first;
  const request = () => {
    const answer = fetchPage(next);
    // Read in order below; one left unread when paging stops must not crash the process.
    answer.catch(() => undefined);
    queue.push({ page: next++, answer });
  };
  let listed = 0;
  let pageSize = 0;
  request();
  for (let done = 1; ; done++) {
    const { page, answer } = queue.shift()!;
    const result = await answer;
    const fresh = result.items.filter((item) => seen.add(identity(item)));
    if (result.items.length > 0 && fresh.length === 0) {
      warn?.(
        `Page ${page} lists no record that an earlier page did not (the service seems to ignore the page number), so paging stops here.`,
      );
      return;
    }
    listed += fresh.length;
    pageSize = Math.max(pageSize, result.items.length);
    if (fresh.length > 0) yield fresh;
    if (!result.more) return;
    if (result.total !== undefined && listed >= result.total) {
      warn?.(
        `The service announced ${result.total} record${result.total === 1 ? "" : "s"}, all listed, yet says there are more; paging stops here.`,
      );
      return;
    }
    if (done >= cap) {
      warn?.(
        `Paging stopped after ${cap} pages, the most one listing follows: the service kept answering more, so the list may be incomplete.`,
      );
      return;
    }
    // The pages the announced count still promises, a few at once; past it (or with no count) one at a time.
    const announced =
      result.total !== undefined && pageSize > 0 ? Math.ceil(result.total / pageSize) : undefined;
    const ahead = announced !== undefined ? Math.min(concurrency, announced - page) : 1;
    while (queue.length < Math.max(1, ahead) && next - first < cap) request();
  }
}

/** What tells one record from another: its id where it has one, else a digest of its content. */
function identity(item: unknown): string {
  if (isRecord(item)) {
    for (const name of ID_FIELDS) {
      const value = field(item, name);
      if (typeof value === "number" || (typeof value === "string" && value.trim() !== ""))
        return `${name}:${String(value).trim()}`;
    }
  }
  return `#${createHash("sha256")
    .update(JSON.stringify(item) ?? "")
    .digest("base64")}`;
}

/** A set of the last `size` keys added (a Set iterates in insertion order: the first key is the oldest). */
class Remembered {
  private readonly keys = new Set<string>();
  constructor(private readonly size: number) {}

  /** Adds `key`; true when it was not there. */
  add(key: string): boolean {
    if (this.keys.has(key)) return false;
    this.keys.add(key);
    if (this.keys.size > this.size) this.keys.delete(this.keys.values().next().value!);
    return true;
  }
}
