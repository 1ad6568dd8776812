import type { Page } from "../../api/endpoints.js";
import { paginate } from "../../api/pager.js";
import type { Context } from "../../context.js";
import { flag } from "./flags.js";

/** A list verb's paging flags, counting `noun` ("tests"): `flags: { ...pageFlags("tests") }`. */
export const pageFlags = (noun: string) => ({
  page: flag.int(1, 1_000_000, "page number to show (the first with --all/--limit)").default("1"),
  pageSize: flag.int(1, 100, `${noun} per request (1-100)`).default("20"),
  all: flag.bool("follow every page"),
  limit: flag.int(1, undefined, `stop after this many ${noun} (follows pages as needed)`),
});

/** One page, or (with --all or --limit) every page from --page on, fetched as the output consumes them. */
export function listPages<T>(
  ctx: Context,
  { page: first, pageSize, all, limit }: { page: number; pageSize: number; all?: boolean; limit?: number },
  fetchPage: (page: number, pageSize: number) => Promise<Page<T>>,
  noun: string,
): { pages: AsyncIterable<T[]>; limit: number | undefined } {
  async function* pages(): AsyncGenerator<T[]> {
    if (all !== true && limit === undefined) {
      yield (await fetchPage(first, pageSize)).items;
      return;
    }
    const progress = ctx.progress(noun);
    let done = 0;
    let total: number | undefined;
    const fetchCounted = async (page: number) => {
      const result = await fetchPage(page, pageSize);
      total = result.total ?? total;
      return result;
    };
    try {
      for await (const items of paginate(fetchCounted, { first, warn: (message) => ctx.warn(message) })) {
        done += items.length;
        progress.update({ done, total });
        yield items;
      }
    } finally {
      progress.done();
    }
  }
  return { pages: pages(), limit };
}
