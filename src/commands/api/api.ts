import { OPERATIONS, type OperationRecord } from "../../api/operations/index.js";
import { paginate } from "../../api/pager.js";
import { readPage } from "../../api/read.js";
import type { RequestOptions } from "../../api/transport.js";
import type { Context } from "../../context.js";
import { UsageError } from "../../errors.js";
import { isRecord } from "../../fields.js";
import { readText } from "../../files.js";
import { jsonErrorText } from "../../parse/json.js";
import * as z from "../../parse/zod.js";
import { parseSetPairs } from "../shared/fields.js";
import { MAX_BODY_BYTES } from "../shared/files.js";
import { arg, flag } from "../shared/flags.js";
import { type OptionsOf, verb } from "../shared/verb.js";

const METHODS = ["GET", "POST", "PATCH", "PUT", "DELETE"] as const;
const PAGE_KEYS = ["pageNo", "PageNumber"];

const flags = {
  data: flag.text("<json>", "request body: JSON text, @file.json, or - for stdin").short("-d"),
  // Absent when no -f is given (a default of [] would show in help as "(default: [])").
  field: flag
    .each(
      "<key=value>",
      "a typed field (numbers, true/false, null parsed): query for GET, body otherwise",
      z.string(),
    )
    .short("-f"),
  skills: flag.bool("send to the employee-skills base URL"),
  paginate: flag.bool("follow page-numbered lists (pageNo or PageNumber) and print all items"),
  include: flag.bool("print the status line and headers before the body").short("-i"),
};

export default verb({
  summary: "Send a raw request to the service (for operations known by name only); prints the answer's body",
  args: [
    arg.text("<method>", "GET, POST, PATCH, PUT or DELETE"),
    arg.text("<path>", "path after the base URL, e.g. /v3/tests or /employees (query string allowed)"),
  ],
  flags,
  examples: [
    "assess api GET /v3/tests -f pageNo=1 -f pageSize=5",
    "assess api GET /employees --skills --paginate -f PageSize=50",
    'assess api POST /v3/gdpr/requests --data \'{"CandidateEmail":"ada@example.com"}\' --dry-run',
  ],
  run,
});

async function run(ctx: Context, o: OptionsOf<typeof flags>, [methodArg, pathArg]: [string, string]) {
  const method = (methodArg ?? "").toUpperCase() as RequestOptions["method"];
  if (!(METHODS as readonly string[]).includes(method))
    throw new UsageError(`Unknown method "${methodArg}"`, `Use one of ${METHODS.join(", ")}`);
  const [pathname, search] = splitPath(pathArg ?? "");
  const query: Record<string, string> = Object.fromEntries(new URLSearchParams(search ?? ""));
  const fields = parseSetPairs(o.field ?? [], "-f");
  let body: unknown = await readData(ctx, o.data);
  if (method === "GET") {
    if (body !== undefined)
      throw new UsageError("A GET request has no body; pass -f key=value for query parameters");
    for (const [key, value] of Object.entries(fields)) query[key] = String(value);
  } else if (Object.keys(fields).length > 0) {
    if (body !== undefined && !isRecord(body))
      throw new UsageError("-f fields can only be added to a JSON object body");
    body = { ...(body as object | undefined), ...fields };
  }
  const client = (await ctx.client()).api.transport;
  const api = o.skills ? "skills" : "assess";

  if (o.paginate) {
    if (method !== "GET") throw new UsageError("--paginate works with GET lists only");
    const pageKey = PAGE_KEYS.find((k) => k in query) ?? (api === "skills" ? "PageNumber" : "pageNo");
    // With no page size given, a page's length says nothing: an empty page, the counts or hasNextPage end it.
    const size = Number(query.pageSize ?? query.PageSize ?? 0) || 0;
    // A documented list (`/v3/tests`) is read as its record says; another path's list is looked for.
    const record = Object.values(OPERATIONS as Record<string, OperationRecord>).find(
      (r) => r.method === "GET" && r.path === pathname && r.pagination,
    )?.pagination;
    const keys = record ? [...record.keys] : [];
    const what = record?.what ?? `the list at ${pathname}`;
    const fetchPage = async (page: number) => {
      const res = await client.request({ method, path: pathname, api, query: { ...query, [pageKey]: page } });
      const answer = {
        status: res.status,
        data: res.data,
        method,
        path: pathname,
        skills: api === "skills",
        notJson: res.notJson,
      };
      return readPage(z.unknown(), answer, keys, what, page, size);
    };
    const items: unknown[] = [];
    const first = Number(query[pageKey] ?? 1);
    for await (const page of paginate(fetchPage, { first, warn: (message) => ctx.warn(message) })) {
      for (const item of page) items.push(item);
    }
    ctx.out.json(items);
    return 0;
  }

  const res = await (await ctx.client()).api.raw({ method, path: pathname, api, query, body });
  if (o.include) {
    ctx.out.write(`HTTP ${res.status}\n`);
    for (const [key, value] of Object.entries(res.headers)) ctx.out.write(`${key}: ${value}\n`);
    ctx.out.write("\n");
  }
  if (res.data !== undefined)
    ctx.out.write(typeof res.data === "string" ? `${res.data}\n` : `${JSON.stringify(res.data, null, 2)}\n`);
  return 0;
}

/** The path and query of `<path>` (`v3/tests` is `/v3/tests`); a whole URL is refused. */
function splitPath(arg: string): [string, string | undefined] {
  if (/^[a-z][a-z\d+.-]*:\/\//i.test(arg)) {
    const url = URL.canParse(arg) ? new URL(arg) : undefined;
    const path = url ? `${url.pathname}${url.search}` : "/v3/…";
    throw new UsageError(
      `Give the path after the base URL, not a whole URL: "${arg}"`,
      `For example \`assess api GET ${path}\`; the base URL is --base-url (or ASSESS_BASE_URL, or the profile's).`,
    );
  }
  if (arg.trim() === "") throw new UsageError("The path is empty", "For example `assess api GET /v3/tests`");
  const [pathname, search] = arg.split("?", 2) as [string, string | undefined];
  return [pathname.startsWith("/") ? pathname : `/${pathname}`, search];
}

async function readData(ctx: Context, data: string | undefined): Promise<unknown> {
  if (data === undefined) return undefined;
  // `-` or curl's `@-`: stdin; `@file`: the file.
  const path = data === "-" ? "-" : data.startsWith("@") ? data.slice(1) : undefined;
  const source = path === "-" ? "stdin" : path;
  const raw =
    path === undefined
      ? data
      : await readText(path, MAX_BODY_BYTES, "a request body", ctx.io.stdin).catch((why: UsageError) => {
          throw new UsageError(
            `--data ${data}: ${why.message}`,
            why.suggestion?.replace("give -", "give --data -"),
          );
        });
  try {
    return JSON.parse(raw);
  } catch (error) {
    throw new UsageError(
      `--data${source ? ` (${source})` : ""} is not valid JSON: ${jsonErrorText(raw, error)}`,
    );
  }
}
