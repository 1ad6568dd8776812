/**
 * Who is who, against services that answer a little differently from the sandbox: `main(argv)` against small
 * hostile servers on 127.0.0.1 written here, asserting which employees were PATCHed, which rows were sent and
 * the exit codes.
 * - `employees sync --prune` never deactivates someone the file names: a service e-mail with a trailing space
 *   or a zero-width character, an external id in another case, a row rejected by --skip-invalid (by e-mail and
 *   external id); ids answered as "007", "0x10", "1e1" or true are never PATCHed (Number() made other people of
 *   them); two records sharing one external id are a conflict, neither changed; active records without a usable
 *   id (`id` instead of `employeeId`) stop the prune, exit 1, named.
 * - `invite bulk --reattempt-finished` gives a candidate one new attempt, not one per finished attempt; a
 *   look-up that fails part-way stops a plan or a reattempting run (exit 1, nothing sent), and a plain run says
 *   how many rows it could not check.
 */
import { readFileSync, writeFileSync } from "node:fs";
import type http from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import { type HostileServer, startHostileServer } from "../../fixtures/hostile/servers.js";
import { emailKey, externalKey, serviceId } from "../../src/identity.js";
import { runCli, useTempDir } from "../helpers/cli.js";

const tmp = useTempDir("assess-identity-", { perTest: true });
const servers: HostileServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

interface Seen {
  method: string;
  path: string;
  body: unknown;
}

function readBody(req: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

/** A server of `answer`'s making; every request's method, path and JSON body kept in `seen`. */
async function serve(answer: (seen: Seen, url: URL) => { status?: number; json?: unknown; text?: string }) {
  const seen: Seen[] = [];
  const server = await startHostileServer(async ({ req, res }) => {
    const text = await readBody(req);
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const request = {
      method: req.method ?? "",
      path: url.pathname,
      body: text ? JSON.parse(text) : undefined,
    };
    seen.push(request);
    const { status = 200, json, text: plain } = answer(request, url);
    res.writeHead(status, { "content-type": plain !== undefined ? "text/plain" : "application/json" });
    res.end(plain ?? JSON.stringify(json ?? {}));
  });
  servers.push(server);
  return { url: server.url, seen };
}

function assess(url: string, argv: string[]) {
  return runCli(argv, {
    env: {
      ASSESS_BASE_URL: url,
      ASSESS_SKILLS_BASE_URL: url,
      ASSESS_API_KEY: "sbx-identity-test-key-0001",
      ASSESS_CONFIG_DIR: tmp.file("config"),
    },
  });
}

describe("identity keys (src/identity.ts)", () => {
  it("e-mails: trimmed, NFC, without zero-width characters, case-folded; external ids trimmed and case-folded", () => {
    const one = emailKey("jose@acme.example");
    for (const spelling of [
      " JOSE@acme.example\t",
      "jo\u200Bse@acme.example",
      "\uFEFFJose@Acme.Example\u2060",
    ])
      expect(emailKey(spelling)).toBe(one);
    expect(emailKey("jos\u0065\u0301@acme.example")).toBe(emailKey("JOS\u00C9@acme.example"));
    expect([emailKey(" \u200B "), emailKey(7), emailKey(null)]).toEqual([undefined, undefined, undefined]);
    expect(externalKey(" acm-13 ")).toBe(externalKey("ACM-13"));
    expect(externalKey(13)).toBe("13");
  });

  it("service ids: a JSON integer or its canonical digits, nothing Number() would make one of", () => {
    expect([serviceId(7), serviceId("7"), serviceId("123456")]).toEqual([7, 7, 123456]);
    for (const odd of [
      "007",
      "0x10",
      "1e1",
      " 7",
      "7.0",
      "",
      "-1",
      "0",
      0,
      -3,
      1.5,
      true,
      null,
      "9007199254740993",
    ])
      expect(serviceId(odd), JSON.stringify(odd)).toBeUndefined();
  });
});

// ---------------------------------------------------------------------------------------------------------
// employees sync

type Employee = Record<string, unknown>;

/** An employees service listing `records` (one page), answering upserts and status changes; what it got. */
async function employeesService(records: Employee[]) {
  let created = 9000;
  const server = await serve(({ method, path, body }) => {
    if (method === "GET" && path === "/employees")
      return { json: { items: records, hasNextPage: false, totalCount: records.length, pageNumber: 1 } };
    if (method === "POST" && path === "/employees/upsert") {
      const items = body as Array<{ email: string }>;
      return {
        json: { successful: items.map((e) => ({ email: e.email, employeeId: created++ })), failed: [] },
      };
    }
    if (method === "PATCH" && /^\/employees\/[^/]+\/status$/.test(path))
      return { json: { status: "Inactive" } };
    return { status: 404, json: { errors: [`no route ${method} ${path}`] } };
  });
  return {
    url: server.url,
    /** The ids whose status was PATCHed, as the paths named them. */
    patched: () => server.seen.filter((r) => r.method === "PATCH").map((r) => r.path.split("/")[2]!),
    /** The e-mails upserted. */
    upserted: () =>
      server.seen
        .filter((r) => r.path === "/employees/upsert")
        .flatMap((r) => (r.body as Array<{ email: string }>).map((e) => e.email)),
  };
}

/** Active employees 1…n, in the file as on the service: the people a wrong id lands on. */
const staff = (n: number): Employee[] =>
  Array.from({ length: n }, (_, i) => ({
    employeeId: i + 1,
    email: `staff${i + 1}@acme.example`,
    firstName: "Staff",
    lastName: `No${i + 1}`,
    externalEmployeeId: `ACM-${i + 1}`,
    status: "Active",
  }));

const COLUMNS = ["email", "firstName", "lastName", "externalEmployeeId", "hireDate"] as const;
function employeesCsv(rows: Employee[]): string {
  const file = tmp.file("staff.csv");
  const line = (row: Employee) => COLUMNS.map((c) => String(row[c] ?? "")).join(",");
  writeFileSync(file, `${[COLUMNS.join(","), ...rows.map(line)].join("\n")}\n`);
  return file;
}

describe("employees sync --prune: nobody in the file is deactivated", () => {
  it("matches service e-mails with a trailing space or a zero-width character, and external ids in another case", async () => {
    const people = staff(40);
    const service = await employeesService([
      ...people,
      { employeeId: 101, email: "ana@acme.example ", firstName: "Ana", lastName: "Alves", status: "Active" },
      {
        employeeId: 102,
        email: "ben\u200B@acme.example",
        firstName: "Ben",
        lastName: "Berg",
        status: "Active",
      },
      {
        employeeId: 103,
        email: "cy@acme.example",
        firstName: "Cy",
        lastName: "Cole",
        externalEmployeeId: "ACM-103",
        status: "Active",
      },
    ]);
    const departed = people.at(-1)!;
    const file = employeesCsv([
      ...people.filter((p) => p !== departed),
      { email: "ana@acme.example", firstName: "Ana", lastName: "Alves" },
      { email: "Ben@acme.example", firstName: "Ben", lastName: "Berg" },
      // A new e-mail for the same person: the external id says who.
      { email: "cy.new@acme.example", firstName: "Cy", lastName: "Cole", externalEmployeeId: "acm-103" },
    ]);
    const r = await assess(service.url, ["employees", "sync", file, "--prune", "--yes", "--json"]);
    expect(r.code, r.stderr).toBe(0);
    // Only the one who left; Ana, Ben and Cy are who they were (not new people, not deactivated).
    expect(service.patched()).toEqual([String(departed.employeeId)]);
    expect(service.upserted()).toEqual(["cy.new@acme.example"]);
    expect(r.json()).toMatchObject({ counts: { new: 0, changed: 1, prune: 1 } });
  });

  it('never PATCHes an id answered as "007", "0x10", "1e1" or true: the prune stops (exit 1, named), nothing sent', async () => {
    const people = staff(40); // employees 7, 16, 10 and 1 are in the file
    const odd: Employee[] = [
      { employeeId: "007", email: "odd.zero@acme.example", status: "Active" },
      { employeeId: "0x10", email: "odd.hex@acme.example", status: "Active" },
      { employeeId: "1e1", email: "odd.exp@acme.example", status: "Active" },
      { employeeId: true, email: "odd.bool@acme.example", status: "Active" },
    ];
    const service = await employeesService([...people, ...odd]);
    const absent = await assess(service.url, ["employees", "sync", employeesCsv(people), "--prune", "--yes"]);
    expect(absent.code, absent.stderr).toBe(1);
    expect(absent.stderr).toContain("--prune cannot deactivate 4 active employees");
    expect(absent.stderr).toContain('odd.zero@acme.example (employeeId "007")');
    expect(absent.stderr).toContain("odd.bool@acme.example (employeeId true)");
    expect(service.patched()).toEqual([]);
    expect(service.upserted()).toEqual([]);

    // In the file, they are matched by e-mail, said to have no usable id, and still never PATCHed.
    const inFile = await assess(service.url, [
      "employees",
      "sync",
      employeesCsv([...people.slice(0, -1), ...odd]),
      "--prune",
      "--yes",
    ]);
    expect(inFile.code, inFile.stderr).toBe(0);
    expect(inFile.stderr).toContain("4 of the service's employees have no usable employeeId");
    expect(service.patched()).toEqual([String(people.at(-1)!.employeeId)]);
  });

  it("active records without a usable id (`id` instead of `employeeId`) stop the prune: exit 1, named, not 'already matches'", async () => {
    const people = staff(30).map(({ employeeId, ...rest }) => ({ id: employeeId, ...rest }));
    const service = await employeesService(people);
    const file = employeesCsv(people.slice(0, -2));
    const plan = await assess(service.url, ["employees", "sync", file, "--prune", "--plan"]);
    expect(plan.code).toBe(0);
    expect(plan.stderr).toContain("--prune cannot deactivate 2 active employees");
    expect(plan.stderr).toContain("a run would stop");

    const r = await assess(service.url, ["employees", "sync", file, "--prune", "--yes"]);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).not.toContain("already matches");
    expect(r.stderr).toContain("staff29@acme.example (externalEmployeeId ACM-29, no employeeId)");
    expect(r.stderr).toContain("staff30@acme.example");
    expect(service.patched()).toEqual([]);
  });

  it("two records sharing one external id: a conflict, reported; neither is changed nor deactivated", async () => {
    const people = staff(30);
    const service = await employeesService([
      ...people,
      { employeeId: 201, email: "eve@acme.example", externalEmployeeId: "ACM-200", status: "Active" },
      { employeeId: 202, email: "eve.old@acme.example", externalEmployeeId: "acm-200 ", status: "Active" },
    ]);
    const file = employeesCsv([
      ...people,
      { email: "eve@acme.example", firstName: "Eve", lastName: "Moved", externalEmployeeId: "ACM-200" },
    ]);
    const refused = await assess(service.url, ["employees", "sync", file, "--prune", "--yes"]);
    expect(refused.code, refused.stderr).toBe(2);
    expect(refused.stderr).toContain(
      "staff.csv:32: 2 of the service's employees have this externalEmployeeId",
    );
    expect(refused.stderr).toContain("employeeId 201, 202");
    expect(service.patched()).toEqual([]);
    expect(service.upserted()).toEqual([]);

    const skipped = await assess(service.url, [
      "employees",
      "sync",
      file,
      "--prune",
      "--skip-invalid",
      "--yes",
      "--json",
    ]);
    expect(skipped.code, skipped.stderr).toBe(0);
    expect(service.patched()).toEqual([]);
    expect(service.upserted()).toEqual([]);
    const out = skipped.json<{ invalid: Array<{ line: number }>; upsert: { rejects: string } }>();
    expect(out.invalid.map((row) => row.line)).toEqual([32]);
    expect(readFileSync(out.upsert.rejects, "utf8")).toContain("eve@acme.example");
  });

  it("a row rejected by --skip-invalid protects its person by external id too (a bad date and a changed e-mail)", async () => {
    const people = staff(30);
    const service = await employeesService([
      ...people,
      { employeeId: 301, email: "fay@acme.example", externalEmployeeId: "ACM-301", status: "Active" },
    ]);
    const file = employeesCsv([
      ...people,
      {
        email: "fay.new@acme.example",
        firstName: "Fay",
        externalEmployeeId: "ACM-301",
        hireDate: "31/02/2020",
      },
    ]);
    const r = await assess(service.url, ["employees", "sync", file, "--prune", "--skip-invalid", "--yes"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain("hireDate");
    expect(service.patched()).toEqual([]);
    expect(service.upserted()).toEqual([]);
  });
});

describe("employees upsert: the service's answer names rows its own way", () => {
  it("a refusal naming the e-mail with a zero-width character and another case is the row's: failed, sent again on a rerun", async () => {
    const server = await serve(({ path, body }) => {
      if (path !== "/employees/upsert") return { status: 404 };
      const items = body as Array<{ email: string }>;
      return {
        json: {
          successful: items.filter((e) => e.email !== "ana@acme.example").map((e) => ({ email: e.email })),
          failed: items
            .filter((e) => e.email === "ana@acme.example")
            .map(() => ({ email: "Ana@ACME.example\u200B ", errors: "department is unknown" })),
        },
      };
    });
    const file = employeesCsv([
      { email: "ana@acme.example", firstName: "Ana" },
      { email: "ben@acme.example", firstName: "Ben" },
    ]);
    const first = await assess(server.url, ["employees", "upsert", file, "--json"]);
    expect(first.code, first.stderr).toBe(3);
    const result = first.json<{ failed: number; failures: Array<{ line: number }>; unmatched: string[] }>();
    expect(result).toMatchObject({ failed: 1, unmatched: [] });
    expect(result.failures.map((f) => f.line)).toEqual([2]);
    // Not recorded as confirmed: a rerun sends Ana again, and only her.
    const again = await assess(server.url, ["employees", "upsert", file, "--json"]);
    expect(again.code).toBe(3);
    const sent = server.seen.map((r) => (r.body as Array<{ email: string }>).map((e) => e.email));
    expect(sent).toEqual([["ana@acme.example", "ben@acme.example"], ["ana@acme.example"]]);
  });
});

// ---------------------------------------------------------------------------------------------------------
// invite bulk and finished candidates

interface Attempt {
  testInvitationId: number;
  testId: number;
  email: string;
  teststatus: string;
}

const DAY_MS = 86_400_000;

/**
 * An assessment service whose attempt listing answers `finished` (every window), or refuses (400) windows
 * that start after `failAfter`; bulk invites answer true, reattempts a new invitation id each.
 */
async function inviteService(finished: Attempt[], options: { failAfter?: Date } = {}) {
  let next = 700;
  const server = await serve(({ method, path, body }) => {
    if (method === "POST" && path === "/v3/candidates/testattempts") {
      const start = new Date(`${(body as { StartDateTime: string }).StartDateTime}`);
      if (options.failAfter && start > options.failAfter)
        return { status: 400, json: { errors: ["the listing is unavailable"] } };
      return { json: { testAttempts: finished } };
    }
    if (method === "POST" && /^\/v3\/tests\/\d+\/invite\/bulk$/.test(path)) return { text: "true" };
    const reattempt = /^\/v3\/invitations\/(\d+)\/reattempt$/.exec(path);
    if (method === "POST" && reattempt)
      return { json: { testInvitationId: next++, testUrl: "https://tests.example/t" } };
    return { status: 404, json: { errors: [`no route ${method} ${path}`] } };
  });
  return {
    url: server.url,
    /** The invitations given a new attempt, as the paths named them. */
    reattempted: () =>
      server.seen.filter((r) => r.path.endsWith("/reattempt")).map((r) => Number(r.path.split("/")[3])),
    invited: () =>
      server.seen
        .filter((r) => r.path.endsWith("/invite/bulk"))
        .flatMap((r) => (r.body as { candidates: Array<{ email: string }> }).candidates.map((c) => c.email)),
    seen: server.seen,
  };
}

function candidatesCsv(emails: string[]): string {
  const file = tmp.file("candidates.csv");
  writeFileSync(file, `email,name\n${emails.map((e) => `${e},${e.split("@")[0]}`).join("\n")}\n`);
  return file;
}

describe("invite bulk --reattempt-finished", () => {
  it("gives a candidate one new attempt: once they finish it too, a rerun does not give another", async () => {
    const finished: Attempt[] = [
      { testInvitationId: 500, testId: 1001, email: "fin@cand.example", teststatus: "Complete" },
    ];
    const service = await inviteService(finished);
    const file = candidatesCsv(["fin@cand.example", "new@cand.example"]);
    const argv = ["invite", "bulk", file, "--test", "1001", "--lookback", "30", "--reattempt-finished"];

    const first = await assess(service.url, argv);
    expect(first.code, first.stderr).toBe(0);
    expect(service.reattempted()).toEqual([500]);
    expect(service.invited()).toEqual(["new@cand.example"]);

    // They took the new attempt (700) and finished it; the listing spells their e-mail its own way.
    finished.push({
      testInvitationId: 700,
      testId: 1001,
      email: " FIN@cand.example",
      teststatus: "Complete",
    });
    const again = await assess(service.url, argv);
    expect(again.code, again.stderr).toBe(0);
    expect(service.reattempted()).toEqual([500]);
    expect(service.invited()).toEqual(["new@cand.example"]);

    const plan = await assess(service.url, [
      "invite",
      "bulk",
      file,
      "--test",
      "1001",
      "--lookback",
      "30",
      "--plan",
      "--json",
    ]);
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.json()).toMatchObject({
      counts: { ledger: 2, finished: 0 },
      ledger: expect.arrayContaining([expect.objectContaining({ reason: "reattempted from here" })]),
    });
  });

  it("a look-up that fails part-way: --reattempt-finished and --plan exit 1 with nothing sent; a plain run says how many rows it could not check", async () => {
    const now = Date.now();
    const service = await inviteService(
      [{ testInvitationId: 500, testId: 1001, email: "fin@cand.example", teststatus: "Complete" }],
      // Of 60 days, the older window answers, the newer one is refused.
      { failAfter: new Date(now - 40 * DAY_MS) },
    );
    const file = candidatesCsv(["fin@cand.example", "a@cand.example", "b@cand.example"]);
    const base = ["invite", "bulk", file, "--test", "1001", "--lookback", "60"];

    const reattempt = await assess(service.url, [...base, "--reattempt-finished"]);
    expect(reattempt.code, reattempt.stderr).toBe(1);
    expect(reattempt.stderr).toContain("could not look up who finished test 1001");
    expect(reattempt.stderr).toContain("nothing was sent");
    const plan = await assess(service.url, [...base, "--plan"]);
    expect(plan.code, plan.stderr).toBe(1);
    expect(service.invited()).toEqual([]);
    expect(service.reattempted()).toEqual([]);
    // Both windows were asked for: the failure was part-way.
    expect(
      service.seen.filter((r) => r.path === "/v3/candidates/testattempts").length,
    ).toBeGreaterThanOrEqual(4);

    const plain = await assess(service.url, base);
    expect(plain.code, plain.stderr).toBe(0);
    // What was read still counts: the one found finished is not invited; the others are, and said unchecked.
    expect(service.invited()).toEqual(["a@cand.example", "b@cand.example"]);
    expect(plain.stderr).toContain(
      "could not check whether 2 of the rows already finished test 1001 (the look-up failed)",
    );
  });
});
