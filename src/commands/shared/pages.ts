import { type Page, paginate } from "../../api/endpoints.js";
import { optionalInt, parseIntInRange } from "./options.js";

/**
 * The pages a list command prints, from its `--page`, `--page-size`, `--all` and `--limit` options: one
 * page, or (with --all or --limit) every page from --page on, fetched only as the output consumes them, so
 * `--limit` stops early and ndjson streams each page as it arrives.
 */
export function listPages<T>(
  options: Record<string, unknown>,
  fetchPage: (page: number, pageSize: number) => Promise<Page<T>>,
  maxPageSize = 100,
): { pages: AsyncIterable<T[]>; limit: number | undefined } {
  const pageSize = parseIntInRange(options.pageSize, "--page-size", 1, maxPageSize);
  const first = parseIntInRange(options.page, "--page", 1, 1_000_000);
  const limit = optionalInt(options.limit, "--limit");
  const pages =
    options.all === true || limit !== undefined
      ? paginate((n) => fetchPage(n, pageSize), first)
      : (async function* () {
          yield (await fetchPage(first, pageSize)).items;
        })();
  return { pages, limit };
}
