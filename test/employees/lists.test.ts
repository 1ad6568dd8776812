import { beforeAll, describe, expect, it } from "vitest";
import { SANDBOX_KEYS, useTestEnv } from "../helpers/cli.js";

const t = useTestEnv();
let acmeEmployees: number;
beforeAll(() => {
  acmeEmployees = t.sandbox.state.employees.filter((e) => e.accountId === "acme").length;
});

function sentSince(before: number) {
  return t.sandbox.requests.slice(before);
}

describe("employees list", () => {
  it("--all follows 3+ pages with PageNumber/PageSize under the skills prefix, with the key", async () => {
    expect(acmeEmployees).toBeGreaterThan(30);
    const before = t.sandbox.requests.length;
    const r = await t.run(["employees", "list", "--all", "--page-size", "10", "--json"]);
    expect(r.code).toBe(0);
    const rows = r.json<Array<{ employeeId: number }>>();
    expect(rows).toHaveLength(acmeEmployees);
    expect(new Set(rows.map((e) => e.employeeId)).size).toBe(acmeEmployees);

    const sent = sentSince(before);
    const pages = Math.ceil(acmeEmployees / 10);
    expect(pages).toBeGreaterThanOrEqual(3);
    expect(sent).toHaveLength(pages);
    sent.forEach((req, i) => {
      expect(req).toMatchObject({
        method: "GET",
        path: "/employees",
        api: "skills",
        query: { PageNumber: String(i + 1), PageSize: "10" },
      });
      expect(req.rawUrl.startsWith("/skills/employees?")).toBe(true);
      expect(req.headers["x-api-key"]).toBe(SANDBOX_KEYS.acme);
    });
  });

  it("one page by default, --page and --page-size choose it", async () => {
    const before = t.sandbox.requests.length;
    const r = await t.run(["employees", "list", "--page", "2", "--page-size", "5", "--json"]);
    expect(r.json<Array<{ employeeId: number }>>().map((e) => e.employeeId)).toEqual([
      506, 507, 508, 509, 510,
    ]);
    expect(sentSince(before)).toHaveLength(1);
    expect(sentSince(before)[0]?.query).toEqual({ PageNumber: "2", PageSize: "5" });
  });

  it("--limit stops paging as soon as it has enough", async () => {
    const before = t.sandbox.requests.length;
    const r = await t.run(["employees", "list", "--limit", "12", "--page-size", "5", "-o", "ndjson"]);
    expect(r.code).toBe(0);
    expect(r.stdout.trim().split("\n")).toHaveLength(12);
    expect(sentSince(before).map((req) => req.query.PageNumber)).toEqual(["1", "2", "3"]);
  });

  it("ndjson writes each page as it arrives: page 1 is out before page 2 fails", async () => {
    t.sandbox.faults.add({ method: "GET", path: "/employees", kind: "hang", skip: 1, times: 1 });
    const r = await t.run([
      "employees",
      "list",
      "--all",
      "--page-size",
      "10",
      "-o",
      "ndjson",
      "--timeout",
      "300",
      "--retries",
      "0",
    ]);
    t.sandbox.faults.clear();
    expect(r.code).toBe(1);
    const lines = r.stdout.trim().split("\n");
    expect(lines).toHaveLength(10);
    expect(JSON.parse(lines[0]!)).toMatchObject({ employeeId: 501 });
  });

  it("tsv (piped) and table (terminal) show name, e-mail, job, department and status", async () => {
    const tsv = await t.run(["employees", "list", "--limit", "2"]);
    const [header, first] = tsv.stdout.trim().split("\n");
    expect(header).toBe("ID\tNAME\tEMAIL\tJOB\tDEPARTMENT\tSTATUS");
    const emp = t.sandbox.state.employees.find((e) => e.employeeId === 501)!;
    expect(first).toBe(
      `501\t${emp.firstName} ${emp.lastName}\t${emp.email}\t${t.sandbox.state.jobProfiles.find((p) => p.jobCode === emp.jobCode)!.title} (${emp.jobCode})\t${emp.department}\t${emp.status}`,
    );
    const table = await t.run(["employees", "list", "--limit", "2"], { tty: true });
    expect(table.stdout).toContain("┌");
    expect(table.stdout).toContain(emp.email);
  });

  it("--fields picks columns, including the computed ones", async () => {
    const r = await t.run([
      "employees",
      "list",
      "--limit",
      "1",
      "--fields",
      "employeeId,name,externalEmployeeId",
      "-o",
      "csv",
    ]);
    const [header, row] = r.stdout.split("\r\n");
    expect(header).toBe("employeeId,name,externalEmployeeId");
    expect(row).toMatch(/^501,[^,]+ [^,]+,ACM-00501$/);
  });

  it("refuses a bad page size before sending anything", async () => {
    const before = t.sandbox.requests.length;
    const r = await t.run(["employees", "list", "--page-size", "500"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("--page-size must be a whole number from 1 to 100");
    expect(sentSince(before)).toHaveLength(0);
  });
});

describe("employees skills-profiles", () => {
  it("--all pages through /employees/skills-profile and shows top skills with levels", async () => {
    const before = t.sandbox.requests.length;
    const r = await t.run(["employees", "skills-profiles", "--all", "--page-size", "15"]);
    expect(r.code).toBe(0);
    const lines = r.stdout.trim().split("\n");
    expect(lines[0]).toBe("ID\tNAME\tEMAIL\tJOB\tDEPARTMENT\tTOP SKILLS");
    expect(lines).toHaveLength(acmeEmployees + 1);
    const sent = sentSince(before);
    expect(sent.length).toBeGreaterThanOrEqual(3);
    for (const req of sent)
      expect(req).toMatchObject({ method: "GET", path: "/employees/skills-profile", api: "skills" });

    // The strongest skill of 501 comes first, with its level.
    const emp = t.sandbox.state.employees.find((e) => e.employeeId === 501)!;
    const best = [...emp.skills].sort(
      (a, b) => b.level - a.level || a.skillName.localeCompare(b.skillName),
    )[0]!;
    expect(lines[1]?.split("\t")[5]).toMatch(
      new RegExp(`^${best.skillName.replace(/[.+]/g, "\\$&")} \\(${best.level}\\)`),
    );
  });

  it("--json passes the service's items through, skills included", async () => {
    const r = await t.run(["employees", "skills-profiles", "--page-size", "3", "--json"]);
    const rows = r.json<Array<{ employeeId: number; skills: unknown[] }>>();
    expect(rows).toHaveLength(3);
    expect(Array.isArray(rows[0]?.skills)).toBe(true);
  });
});
