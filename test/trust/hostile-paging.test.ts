/**
 * The one pager ends (api/pager.ts), whatever the service answers: `employees list --all`, `tests list --all`,
 * `employees sync` and the SDK's iterators against small hostile servers on 127.0.0.1 written for them. Each
 * counts the requests; the elapsed time is bounded only as a guard against hanging.
 */
import { writeFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { type HostileServer, startHostileServer } from "../../fixtures/hostile/servers.js";
import { MAX_PAGES } from "../../src/api/pager.js";
import { createClient } from "../../src/sdk/index.js";
import { ndjson, runCli, useTempDir } from "../helpers/cli.js";

const tmp = useTempDir("assess-hostile-paging-");
const servers: HostileServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

/** A service answering `answer(page, size)` as JSON to every request. */
async function serve(answer: (page: number, size: number) => unknown): Promise<HostileServer> {
  const server = await startHostileServer(({ req, res }) => {
    const url = new URL(req.url ?? "/", "http://x");
    const page = Number(url.searchParams.get("PageNumber") ?? url.searchParams.get("pageNo") ?? 1);
    const size = Number(url.searchParams.get("PageSize") ?? url.searchParams.get("pageSize") ?? 100);
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(answer(page, size)));
  });
  servers.push(server);
  return server;
}

const env = (server: HostileServer) => ({
  ASSESS_CONFIG_DIR: tmp.file(`config-${Math.random().toString(36).slice(2)}`),
  ASSESS_API_KEY: "paging-key-0000",
  ASSESS_BASE_URL: server.url,
  ASSESS_SKILLS_BASE_URL: server.url,
  CI: "true",
});

async function assess(server: HostileServer, argv: string[]) {
  const started = Date.now();
  const r = await runCli(argv, { env: env(server) });
  return { ...r, ms: Date.now() - started };
}

const employee = (id: number) => ({ employeeId: id, email: `e${id}@example.com`, firstName: `E${id}` });
const range = (from: number, count: number) => Array.from({ length: count }, (_, i) => from + i);

/**
 * The same ten employees whatever the page asked: five of them, from a place that moves with the page number
 * (so no page repeats the one before, and each of the first three brings some not seen yet), always with more.
 */
const rotating = (page: number) => ({
  items: range(0, 5).map((i) => employee(1 + ((3 * page + i) % 10))),
  hasNextPage: true,
});

describe("the pager ends against a service that ignores the page number", () => {
  it("employees list --all: the same ten employees reshuffled stop it at the first page with none new", async () => {
    const server = await serve(rotating);
    const r = await assess(server, ["employees", "list", "--all", "--page-size", "5", "-o", "ndjson"]);
    expect(r.code, r.stderr).toBe(0);
    // Pages 1–3 bring the ten, page 4 none: four requests, each employee printed once.
    expect(server.requests).toHaveLength(4);
    expect(
      ndjson<{ employeeId: number }>(r.stdout)
        .map((e) => e.employeeId)
        .sort((a, b) => a - b),
    ).toEqual(range(1, 10));
    expect(r.stderr).toMatch(/Page 4 lists no record that an earlier page did not .*ignore the page number/);
    expect(r.ms).toBeLessThan(30_000);
  }, 60_000);

  it("tests list --all: a full page of the same tests in another order stops it at page 2", async () => {
    const tests = range(5001, 3).map((testId) => ({ testId, testName: `Test ${testId}` }));
    const server = await serve((page) => ({ tests: page % 2 ? tests : [...tests].reverse() }));
    const r = await assess(server, ["tests", "list", "--all", "--page-size", "3", "--json"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.json<{ testId: number }[]>().map((t) => t.testId)).toEqual([5001, 5002, 5003]);
    expect(server.requests).toHaveLength(2);
    expect(r.stderr).toMatch(/Page 2 lists no record that an earlier page did not/);
    expect(r.ms).toBeLessThan(30_000);
  }, 60_000);

  it("employees sync --plan: a hundred employees reshuffled on every page are listed in two requests", async () => {
    const server = await serve((page) => ({
      items: range(0, 100).map((i) => employee(1 + ((i + page * 7) % 100))),
      hasNextPage: true,
    }));
    const file = tmp.file("people.csv");
    writeFileSync(file, "email,firstName,lastName,externalEmployeeId\ne1@example.com,E1,One,X1\n");
    const r = await assess(server, ["employees", "sync", file, "--plan", "--json"]);
    expect(r.code, r.stderr).toBe(0);
    expect(server.requests.map((q) => q.method)).toEqual(["GET", "GET"]);
    expect(r.stderr).toMatch(/Page 2 lists no record that an earlier page did not/);
    expect(r.ms).toBeLessThan(30_000);
  }, 60_000);
});

describe("the pager ends against a service that keeps answering new records", () => {
  it("employees list --all stops when the count the service announced is listed", async () => {
    // New employees on every page, hasNextPage always true, and a total of 250.
    const server = await serve((page, size) => ({
      items: range((page - 1) * size + 1, size).map(employee),
      hasNextPage: true,
      totalCount: 250,
    }));
    const r = await assess(server, ["employees", "list", "--all", "--page-size", "100", "-o", "ndjson"]);
    expect(r.code, r.stderr).toBe(0);
    expect(server.requests).toHaveLength(3);
    expect(r.ms).toBeLessThan(30_000);
  }, 60_000);

  it("the SDK's iterator stops at its page cap with a warning naming it; the default cap is the pager's", async () => {
    const server = await serve((page, size) => ({
      items: range((page - 1) * size + 1, size).map(employee),
      hasNextPage: true,
    }));
    const client = createClient({
      apiKey: "paging-key-0000",
      baseUrl: server.url,
      skillsBaseUrl: server.url,
      env: { ASSESS_CONFIG_DIR: tmp.file("sdk") },
    });
    const warnings: string[] = [];
    let count = 0;
    const started = Date.now();
    try {
      for await (const _ of client.employees.iterate({
        pageSize: 10,
        maxPages: 25,
        onWarning: (m) => warnings.push(m),
      }))
        count++;
    } finally {
      await client.close();
    }
    expect(count).toBe(250);
    expect(server.requests).toHaveLength(25);
    expect(warnings).toEqual([expect.stringMatching(/Paging stopped after 25 pages.*may be incomplete/)]);
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(MAX_PAGES).toBe(10_000);
  }, 60_000);

  it("the SDK's iterator: the same page answered again and again (reshuffled) ends after two requests", async () => {
    const server = await serve((page) => ({
      items: (page % 2 ? range(1, 4) : range(1, 4).reverse()).map(employee),
      hasNextPage: true,
    }));
    const client = createClient({
      apiKey: "paging-key-0000",
      baseUrl: server.url,
      skillsBaseUrl: server.url,
      env: { ASSESS_CONFIG_DIR: tmp.file("sdk2") },
    });
    const ids: number[] = [];
    try {
      for await (const e of client.employees.iterate({ pageSize: 4 })) ids.push(Number(e.employeeId));
    } finally {
      await client.close();
    }
    expect(ids).toEqual([1, 2, 3, 4]);
    expect(server.requests).toHaveLength(2);
  }, 60_000);
});
