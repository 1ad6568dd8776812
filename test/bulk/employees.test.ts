import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { BulkResult } from "../../src/bulk/engine/summary.js";
import { useTempDir, useTestEnv } from "../helpers/cli.js";
import { isUpsert, ROOT } from "./helpers.js";

const env = useTestEnv({ clearFaults: true });
const tmp = useTempDir();

const JOBS = ["SWE1", "SWE2", "SWE3", "DATA1", "DATA2", "SUP1", "SUP2", "QA1", "PM1"];

function employeesCsv(n: number, prefix: string, badEvery = 0): string {
  const lines = ["email,first_name,Last Name,jobCode,external-employee-id,department,hireDate,Cost Center"];
  for (let i = 0; i < n; i++) {
    const job = badEvery > 0 && i % badEvery === badEvery - 1 ? "NOPE9" : JOBS[i % JOBS.length];
    lines.push(
      `${prefix}${i}@example.com,First${i},Last${i},${job},${prefix.toUpperCase()}-${i},Dept ${i % 7},2020-01-${String((i % 28) + 1).padStart(2, "0")},CC-${i % 5}`,
    );
  }
  return `${lines.join("\n")}\n`;
}

const upserts = (from: number) => env.sandbox.requests.slice(from).filter(isUpsert);

describe("employees upsert", () => {
  it("2,500 employees → 25 requests of ≤100; per-item failures land in the rejects file and make it exit 3", async () => {
    const file = tmp.file("staff.csv");
    writeFileSync(file, employeesCsv(2500, "emp", 50));
    const mark = env.sandbox.requests.length;
    const run = await env.run(["employees", "upsert", file]);
    expect(run.code).toBe(3);
    const summary = run.json<BulkResult>();
    expect(summary).toMatchObject({
      rows: 2500,
      valid: 2500,
      sent: 2500,
      failed: 50,
      chunks: { total: 25, succeeded: 25, failed: 0, uncertain: 0 },
    });
    expect(summary.failures[0]).toMatchObject({
      line: 51,
      label: "emp49@example.com",
      error: "Unknown job code 'NOPE9'",
    });
    const requests = upserts(mark);
    expect(requests).toHaveLength(25);
    for (const r of requests) expect((r.body as unknown[]).length).toBeLessThanOrEqual(100);
    // Columns mapped to §2.11, the unknown one into customFieldWithValue, dates as date-times.
    expect((requests[0]!.body as unknown[])[0]).toEqual({
      email: "emp0@example.com",
      firstName: "First0",
      lastName: "Last0",
      jobCode: "SWE1",
      employeeHRMSInfo: {
        externalEmployeeId: "EMP-0",
        department: "Dept 0",
        hireDate: "2020-01-01T00:00:00Z",
        customFieldWithValue: { "Cost Center": "CC-0" },
      },
    });
    const rejects = readFileSync(tmp.file("staff.rejects.csv"), "utf8").trim().split("\r\n");
    expect(rejects).toHaveLength(51);
    expect(rejects[0]).toBe(
      "email,first_name,Last Name,jobCode,external-employee-id,department,hireDate,Cost Center,error",
    );
    expect(rejects[1]).toBe(
      "emp49@example.com,First49,Last49,NOPE9,EMP-49,Dept 0,2020-01-22,CC-4,line 51: Unknown job code 'NOPE9'",
    );
    expect(run.stderr).toMatch(/50 rows were refused by the service \(written to .*staff\.rejects\.csv\)/);

    // Rerun: the 2,450 confirmed rows are skipped, the refused ones are sent again.
    const mark2 = env.sandbox.requests.length;
    const rerun = await env.run(["employees", "upsert", file, "--json"]);
    expect(rerun.code).toBe(3);
    expect(rerun.json<BulkResult>()).toMatchObject({ alreadyDone: 2450, sent: 50, failed: 50 });
    expect(upserts(mark2)).toHaveLength(1);

    // Fixed rejects go back in as they are (the error column is ignored).
    const fixedPath = tmp.file("staff.rejects.csv");
    writeFileSync(fixedPath, readFileSync(fixedPath, "utf8").replaceAll("NOPE9", "QA1"));
    const fixed = await env.run([
      "employees",
      "upsert",
      fixedPath,
      "--json",
      "--rejects",
      tmp.file("again.csv"),
    ]);
    expect(fixed.code).toBe(0);
    expect(fixed.json<BulkResult>()).toMatchObject({ rows: 50, sent: 50, failed: 0 });
    const emp49 = env.sandbox.state.employees.find((e) => e.email === "emp49@example.com");
    expect(emp49).toMatchObject({ jobCode: "QA1", customFieldWithValue: { "Cost Center": "CC-4" } });
  });

  it("a rerun skips rows identical to confirmed ones and sends changed ones", async () => {
    const file = tmp.file("change.csv");
    writeFileSync(file, employeesCsv(30, "chg"));
    expect((await env.run(["employees", "upsert", file])).code).toBe(0);
    writeFileSync(file, employeesCsv(30, "chg").replace("Dept 3,", "Dept 99,"));
    const mark = env.sandbox.requests.length;
    const run = await env.run(["employees", "upsert", file, "--json"]);
    expect(run.code).toBe(0);
    expect(run.json<BulkResult>()).toMatchObject({ alreadyDone: 29, sent: 1 });
    const sent = upserts(mark);
    expect((sent[0]!.body as Array<{ email: string }>).map((e) => e.email)).toEqual(["chg3@example.com"]);
  });

  it("the same employees in another field order (custom fields too) are the same rows; another value is not", async () => {
    const employee = (i: number, department: string) => ({
      email: `order${i}@example.com`,
      firstName: `First${i}`,
      lastName: `Last${i}`,
      employeeHRMSInfo: { department, customFieldWithValue: { Region: "EU", Badge: `B${i}` } },
    });
    const first = tmp.file("order.json");
    writeFileSync(first, JSON.stringify([0, 1, 2].map((i) => employee(i, "Ops"))));
    expect((await env.run(["employees", "upsert", first])).code).toBe(0);

    // Every object's keys reversed, custom fields included; one department changed.
    const reversed = (value: unknown): unknown =>
      value && typeof value === "object"
        ? Object.fromEntries(
            Object.entries(value)
              .reverse()
              .map(([k, v]) => [k, reversed(v)]),
          )
        : value;
    const second = tmp.file("order-reversed.json");
    writeFileSync(
      second,
      JSON.stringify([0, 1, 2].map((i) => reversed(employee(i, i === 1 ? "Sales" : "Ops")))),
    );
    const mark = env.sandbox.requests.length;
    const run = await env.run(["employees", "upsert", second, "--json"]);
    expect(run.code).toBe(0);
    expect(run.json<BulkResult>()).toMatchObject({ alreadyDone: 2, sent: 1 });
    expect((upserts(mark)[0]!.body as Array<{ email: string }>).map((e) => e.email)).toEqual([
      "order1@example.com",
    ]);
  });

  it("--chunk-size lowers the limit of 100, never raises it", async () => {
    const file = tmp.file("small.csv");
    writeFileSync(file, employeesCsv(25, "small"));
    const tooBig = await env.run(["employees", "upsert", file, "--chunk-size", "101"]);
    expect(tooBig.code).toBe(2);
    const mark = env.sandbox.requests.length;
    expect((await env.run(["employees", "upsert", file, "--chunk-size", "10"])).code).toBe(0);
    expect(upserts(mark).map((r) => (r.body as unknown[]).length)).toEqual([10, 10, 5]);
  });

  it("validates rows: e-mail, dates, a repeated e-mail with other values; line numbers in every message", async () => {
    const file = tmp.file("checks.csv");
    writeFileSync(
      file,
      [
        "email,firstName,lastName,hireDate,managerEmail",
        "ok1@example.com,A,B,2021-03-04,",
        "nope,A,B,,",
        'ok2@example.com,"Multi',
        'line",B,31/12/2020,',
        "ok3@example.com,A,B,2021-02-30T10:00:00Z,boss-at-example",
        "OK1@example.com,Again,B,,",
      ].join("\r\n"),
    );
    const run = await env.run(["employees", "upsert", file]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('checks.csv:3: email: "nope" is not a valid e-mail address');
    expect(run.stderr).toContain('checks.csv:4: hireDate: "31/12/2020" is not a date');
    expect(run.stderr).toMatch(/checks\.csv:6: hireDate: "2021-02-30T10:00:00Z" is not a date.*managerEmail/);
    // ok1 and OK1 are one employee, written twice with other values: both rows are refused.
    expect(run.stderr).toContain("checks.csv:2: conflicts with line 7: the same e-mail with other values");
    expect(run.stderr).toContain("checks.csv:7: conflicts with line 2: the same e-mail with other values");
    expect(
      upserts(0).some((r) => (r.body as Array<{ email: string }>).some((e) => e.email === "ok1@example.com")),
    ).toBe(false);
    const skip = await env.run(["employees", "upsert", file, "--skip-invalid", "--json"]);
    expect(skip.code).toBe(0);
    expect(skip.json<BulkResult>()).toMatchObject({ rows: 5, valid: 0, invalid: 5, duplicates: 0, sent: 0 });
  });

  it("reads a JSON array as a stream, with line numbers", async () => {
    const file = tmp.file("people.json");
    const items = [
      {
        email: "json1@example.com",
        firstName: "J",
        lastName: "One",
        jobCode: "SWE1",
        employeeHRMSInfo: { hireDate: "2022-05-01" },
      },
      {
        email: "json2@example.com",
        firstName: "J",
        lastName: "Two",
        employeeHRMSInfo: { customFieldWithValue: { Team: "Blue" } },
      },
      { email: "bad-json", firstName: "J", lastName: "Three" },
      { email: "json4@example.com", firstName: "J", lastName: "Four", shoeSize: 44 },
    ];
    writeFileSync(
      file,
      `[\n${items.map((i) => `  ${JSON.stringify(i, null, 1).replaceAll("\n", "\n  ")}`).join(",\n")}\n]\n`,
    );
    const text = readFileSync(file, "utf8").split("\n");
    const lineOf = (needle: string) => text.findIndex((l) => l.includes(needle)) + 1 - 1; // the "{" line precedes the email
    const run = await env.run(["employees", "upsert", file]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(
      `people.json:${lineOf('"bad-json"')}: email: "bad-json" is not a valid e-mail address`,
    );
    expect(run.stderr).toContain(`people.json:${lineOf('"json4@')}: unknown field: shoeSize`);
    const mark = env.sandbox.requests.length;
    const skip = await env.run(["employees", "upsert", file, "--skip-invalid", "--json"]);
    expect(skip.code).toBe(0);
    expect(skip.json<BulkResult>()).toMatchObject({
      rows: 4,
      valid: 2,
      invalid: 2,
      sent: 2,
      rejects: tmp.file("people.rejects.json"),
    });
    expect(upserts(mark)[0]!.body).toEqual([
      {
        email: "json1@example.com",
        firstName: "J",
        lastName: "One",
        jobCode: "SWE1",
        employeeHRMSInfo: { hireDate: "2022-05-01T00:00:00Z" },
      },
      {
        email: "json2@example.com",
        firstName: "J",
        lastName: "Two",
        employeeHRMSInfo: { customFieldWithValue: { Team: "Blue" } },
      },
    ]);
    const rejects = JSON.parse(readFileSync(tmp.file("people.rejects.json"), "utf8")) as Array<
      Record<string, unknown>
    >;
    expect(rejects).toHaveLength(2);
    expect(rejects[1]).toMatchObject({
      email: "json4@example.com",
      shoeSize: 44,
      error: expect.stringMatching(/unknown field/),
    });
  });

  it("the sample fixture upserts cleanly against the sandbox", async () => {
    const run = await env.run(["employees", "upsert", join(ROOT, "fixtures", "employees.csv"), "--json"]);
    expect(run.code).toBe(0);
    expect(run.json<BulkResult>()).toMatchObject({ rows: 20, sent: 20, failed: 0 });
    const sofia = env.sandbox.state.employees.find((e) => e.email === "sofia.alvarez@example.com");
    expect(sofia).toMatchObject({
      firstName: "Sofía",
      jobCode: "DATA2",
      customFieldWithValue: { "Cost Center": "CC-200" },
    });
  });

  it("an upsert whose answer is lost is uncertain: exit 3, not resent by a plain rerun", async () => {
    const file = tmp.file("lost.csv");
    writeFileSync(file, employeesCsv(150, "lostemp"));
    env.sandbox.faults.add({ method: "POST", path: "/employees/upsert", kind: "lost-after" });
    const run = await env.run(["employees", "upsert", file, "--concurrency", "1"]);
    expect(run.code).toBe(3);
    // `sent` counts the rows whose answer came: the uncertain ones are counted there only.
    expect(run.json<BulkResult>()).toMatchObject({
      sent: 50,
      uncertain: 100,
      chunks: { uncertain: 1, succeeded: 1 },
    });
    // What can be done: the employees' list shows whether they arrived.
    expect(run.stderr.replace(/\s+/g, " ")).toContain(
      "`assess employees list --all` shows whether they arrived; --retry-uncertain sends them again",
    );
    const mark = env.sandbox.requests.length;
    const rerun = await env.run(["employees", "upsert", file]);
    expect(rerun.code).toBe(3);
    expect(upserts(mark)).toHaveLength(0);
    expect(rerun.json<BulkResult>()).toMatchObject({ alreadyDone: 50, uncertain: 100 });
  });

  it("a refused key stops the run with exit 4, and what it printed says so, not 'exit 3'", async () => {
    const file = tmp.file("wrong-key.csv");
    writeFileSync(file, employeesCsv(3, "keyemp"));
    const wrongKey = { env: { ASSESS_API_KEY: "sbx-wrong-key-0000" } };
    const run = await env.run(["employees", "upsert", file], wrongKey);
    expect(run.code).toBe(4);
    expect(run.stderr).not.toContain("exit 3");
    expect(run.stderr).toContain("warning: Stopped before the end by the error below");
    expect(run.stderr).toMatch(/error: Access denied/);
    // The JSON summary comes with --json; on its own it marks exit 3 (CLI.md), which this is not.
    expect(run.stdout).toBe("");
    const json = await env.run(["employees", "upsert", file, "--json"], wrongKey);
    expect(json.code).toBe(4);
    expect(json.json<BulkResult>()).toMatchObject({ rows: 3, failed: 3 });
  });
});
