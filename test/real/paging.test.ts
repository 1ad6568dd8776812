/**
 * `--all` over every page shape the real service may use: it stops on whichever signal the answer carries
 * (hasNextPage false, totalPages, a total reached, a short or empty page), follows a short page that says more
 * are coming, and stops with a warning when a service that ignores the page number repeats a page, instead of
 * looping forever.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";

const TESTS = Array.from({ length: 7 }, (_, i) => ({ testId: 5001 + i, testName: `Test ${i + 1}` }));

type Shape = (items: unknown[], page: number, size: number) => unknown;
let shape: Shape = (items) => items;
/** Page size the fake service really uses, whatever was asked (a service may cap it). */
let served = 3;
let calls: number[] = [];

let server: http.Server;
let base: string;
beforeAll(async () => {
  server = http.createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://x");
    const page = Number(url.searchParams.get("pageNo") ?? url.searchParams.get("PageNumber") ?? 1);
    calls.push(page);
    const items = TESTS.slice((page - 1) * served, page * served);
    res
      .writeHead(200, { "content-type": "application/json" })
      .end(JSON.stringify(shape(items, page, served)));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

async function listAll(pageSize: number) {
  calls = [];
  const r = await runCli(["tests", "list", "--all", "--page-size", String(pageSize), "--json"], {
    env: { ASSESS_BASE_URL: base, ASSESS_API_KEY: "paging-key-0000", CI: "true" },
  });
  const ids = r.code === 0 ? r.json<{ testId: number }[]>().map((t) => t.testId) : [];
  return { ...r, ids, calls: [...calls] };
}

const ALL = TESTS.map((t) => t.testId);

describe("tests list --all on each page shape", () => {
  it("a bare array: stops on the short page", async () => {
    served = 3;
    shape = (items) => items;
    const r = await listAll(3);
    expect(r.ids).toEqual(ALL);
    expect(r.calls).toEqual([1, 2, 3]);
  });

  it("an empty page ends it when the last page was full", async () => {
    served = 7;
    shape = (items) => ({ tests: items, count: 7 });
    const r = await listAll(7);
    expect(r.ids).toEqual(ALL);
    // count 7 is no larger than the page, so it may be the page's own count: the short (empty) page decides.
    expect(r.calls).toEqual([1, 2]);
  });

  it("hasNextPage: a short page that says more are coming is followed; false ends it", async () => {
    served = 2; // the service caps the page at 2 though 5 were asked
    shape = (items, page) => ({ items, hasNextPage: page < 4, pageNumber: page });
    const r = await listAll(5);
    expect(r.ids).toEqual(ALL);
    expect(r.calls).toEqual([1, 2, 3, 4]);
  });

  it("totalPages ends it", async () => {
    served = 3;
    shape = (items) => ({ data: items, totalPages: 3 });
    const r = await listAll(3);
    expect(r.ids).toEqual(ALL);
    expect(r.calls).toEqual([1, 2, 3]);
  });

  it("a total reached ends it, even on a full page ({result, errors} envelope with totalCount)", async () => {
    served = 7;
    shape = (items) => ({ result: { items, totalCount: 7 }, errors: null });
    const r = await listAll(7);
    expect(r.ids).toEqual(ALL);
    expect(r.calls).toEqual([1]);
  });

  it("a service that ignores the page number: the repeated page stops it, with a warning", async () => {
    served = 3;
    shape = () => ({ tests: TESTS.slice(0, 3), hasNextPage: true });
    const r = await listAll(3);
    expect(r.code).toBe(0);
    expect(r.ids).toEqual([5001, 5002, 5003]);
    expect(r.calls).toEqual([1, 2]);
    expect(r.stderr).toMatch(/Page 2 lists no record that an earlier page did not.*ignore the page number/);
  });
});
