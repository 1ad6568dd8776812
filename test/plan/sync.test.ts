/**
 * `employees sync` in-process (main) on the sandbox: a file with unchanged, changed, new and departed
 * employees — the plan (table and JSON), then the sync (only changed and new upserted, only departed
 * deactivated), then again (nothing sent); and the prune cap (10 % of active employees, or --max-prune).
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { usePlanEnv, writes } from "./env.js";

interface Listed {
  employeeId: number;
  email: string;
  firstName: string;
  lastName: string;
  jobCode: string | null;
  status: string;
  externalEmployeeId: string | null;
  department: string | null;
  location: string | null;
  hireDate: string | null;
  grade: string | null;
  customFieldWithValue: Record<string, string>;
}

const COLUMNS = [
  "email",
  "firstName",
  "lastName",
  "jobCode",
  "externalEmployeeId",
  "department",
  "location",
  "hireDate",
  "grade",
  "costCenter",
] as const;

function csv(employees: Array<Partial<Listed> & { email: string }>): string {
  const cell = (e: Partial<Listed>, column: (typeof COLUMNS)[number]) =>
    column === "costCenter" ? (e.customFieldWithValue?.costCenter ?? "") : String(e[column] ?? "");
  return `${[COLUMNS.join(","), ...employees.map((e) => COLUMNS.map((c) => cell(e, c)).join(","))].join("\n")}\n`;
}

const b = usePlanEnv();
let listed: Listed[];
beforeAll(async () => {
  const r = await b.run(["employees", "list", "--all", "--json"]);
  listed = JSON.parse(r.stdout) as Listed[];
  b.sent();
});

describe("employees sync", () => {
  it("plans, upserts only changed and new rows, deactivates only the departed, then sends nothing", async () => {
    const active = listed.filter((e) => e.status === "Active");
    expect(active.length).toBeGreaterThanOrEqual(30);
    const departed = active.slice(-3);
    const staying = listed.filter((e) => !departed.includes(e));
    const [moved, renamed] = [staying[0]!, staying[1]!];
    const file = join(b.dir, "staff.csv");
    const rows = [
      ...staying.map((e) =>
        e === moved
          ? { ...e, department: "Research" }
          : e === renamed
            ? { ...e, lastName: "Okafor-Smith" }
            : e,
      ),
      { email: "new.one@acme.example", firstName: "New", lastName: "One", externalEmployeeId: "ACM-90001" },
      { email: "new.two@acme.example", firstName: "New", lastName: "Two", externalEmployeeId: "ACM-90002" },
    ];
    writeFileSync(file, csv(rows));

    const plan = await b.run(["employees", "sync", file, "--prune", "--plan", "--json"]);
    expect(plan.code).toBe(0);
    const p = JSON.parse(plan.stdout);
    expect(p.counts).toMatchObject({
      new: 2,
      changed: 2,
      unchanged: staying.length - 2,
      prune: 3,
      active: active.length,
    });
    expect(p.changed).toEqual([
      expect.objectContaining({ email: moved.email, employeeId: moved.employeeId, fields: ["department"] }),
      expect.objectContaining({ email: renamed.email, employeeId: renamed.employeeId, fields: ["lastName"] }),
    ]);
    expect(p.new.map((r: { email: string }) => r.email)).toEqual([
      "new.one@acme.example",
      "new.two@acme.example",
    ]);
    expect(p.prune.map((r: { employeeId: number }) => r.employeeId).sort()).toEqual(
      departed.map((e) => e.employeeId).sort(),
    );
    // The plan read every page and wrote nothing.
    const planned = b.sent();
    expect(writes(planned)).toEqual([]);
    expect(planned.every((r) => r.method === "GET" && r.path === "/employees")).toBe(true);

    const table = await b.run(["employees", "sync", file, "--prune", "--plan"]);
    expect(table.stdout).toContain("department");
    expect(table.stderr).toContain("Plan: 2 new, 2 changed");
    expect(writes(b.sent())).toEqual([]);

    // Not a terminal and no --yes: refused before anything is sent.
    const refused = await b.run(["employees", "sync", file, "--prune"]);
    expect(refused.code).toBe(2);
    expect(writes(b.sent())).toEqual([]);

    const applied = await b.run(["employees", "sync", file, "--prune", "--yes", "--json"]);
    expect(applied.code).toBe(0);
    const sent = writes(b.sent());
    const upserts = sent.filter((r) => r.path === "/employees/upsert");
    expect(upserts).toHaveLength(1);
    expect((upserts[0]!.body as Array<{ email: string }>).map((e) => e.email).sort()).toEqual(
      [moved.email, renamed.email, "new.one@acme.example", "new.two@acme.example"].sort(),
    );
    const patches = sent.filter((r) => r.method === "PATCH");
    expect(patches.map((r) => r.path).sort()).toEqual(
      departed.map((e) => `/employees/${e.employeeId}/status`).sort(),
    );
    expect(patches.every((r) => (r.body as { status: string }).status === "Inactive")).toBe(true);
    expect(sent).toHaveLength(upserts.length + patches.length);
    expect(JSON.parse(applied.stdout)).toMatchObject({ deactivated: expect.any(Array), upsert: { sent: 4 } });

    const again = await b.run(["employees", "sync", file, "--prune", "--yes"]);
    expect(again.code).toBe(0);
    expect(again.stderr).toContain("already matches");
    expect(writes(b.sent())).toEqual([]);
  });

  it("refuses a prune of more than 10 % of active employees unless --max-prune allows it", async () => {
    const r = await b.run(["employees", "list", "--all", "--json"]);
    const now = JSON.parse(r.stdout) as Listed[];
    b.sent();
    const active = now.filter((e) => e.status === "Active");
    const cap = Math.floor(active.length * 0.1);
    const gone = active.slice(0, cap + 1);
    const file = join(b.dir, "filtered.csv");
    writeFileSync(file, csv(now.filter((e) => !gone.includes(e))));

    const capped = await b.run(["employees", "sync", file, "--prune", "--yes"]);
    expect(capped.code).toBe(2);
    expect(capped.stderr).toContain(`would deactivate ${cap + 1} of ${active.length} active employees`);
    expect(capped.stderr).toContain(`--max-prune ${cap + 1}`);
    expect(writes(b.sent())).toEqual([]);

    const low = await b.run(["employees", "sync", file, "--prune", "--yes", "--max-prune", String(cap)]);
    expect(low.code).toBe(2);
    expect(writes(b.sent())).toEqual([]);

    const allowed = await b.run([
      "employees",
      "sync",
      file,
      "--prune",
      "--yes",
      "--max-prune",
      String(cap + 1),
    ]);
    expect(allowed.code).toBe(0);
    const sent = writes(b.sent());
    expect(sent.map((req) => req.path).sort()).toEqual(
      gone.map((e) => `/employees/${e.employeeId}/status`).sort(),
    );
  });

  it("--skip-invalid syncs the valid rows and writes the invalid ones to the rejects file", async () => {
    const r = await b.run(["employees", "list", "--all", "--json"]);
    const now = JSON.parse(r.stdout) as Listed[];
    b.sent();
    const file = join(b.dir, "some-bad.csv");
    writeFileSync(
      file,
      csv([
        ...now,
        { email: "broken-at-example.com", firstName: "X" },
        { email: "fresh@acme.example", firstName: "F", lastName: "G" },
      ]),
    );
    const ran = await b.run(["employees", "sync", file, "--skip-invalid", "--yes", "--json"]);
    expect(ran.code).toBe(0);
    const out = JSON.parse(ran.stdout);
    expect(out.counts).toMatchObject({ new: 1, changed: 0, invalid: 1 });
    expect(out.upsert).toMatchObject({ sent: 1, invalid: 1 });
    expect(readFileSync(out.upsert.rejects, "utf8")).toContain("broken-at-example.com");
    const upserts = writes(b.sent());
    expect(upserts).toHaveLength(1);
    expect((upserts[0]!.body as Array<{ email: string }>).map((e) => e.email)).toEqual([
      "fresh@acme.example",
    ]);
  });

  it("an invalid row stops the sync before it reads or sends anything (exit 2, naming its line)", async () => {
    const file = join(b.dir, "bad.csv");
    writeFileSync(file, csv([{ email: "not-an-email", firstName: "X", lastName: "Y" }, listed[0]!]));
    const bad = await b.run(["employees", "sync", file, "--yes"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("bad.csv:2");
    // Refused before the listing: not even a read.
    expect(b.sent()).toEqual([]);
  });

  it("two rows of one e-mail with other values: a plan lists both, a run refuses them unread, --skip-invalid rejects them", async () => {
    const file = join(b.dir, "twins.csv");
    writeFileSync(
      file,
      csv([
        { email: "twin@acme.example", firstName: "T", lastName: "One", department: "Sales" },
        { email: "solo@acme.example", firstName: "S", lastName: "Two" },
        { email: "TWIN@acme.example", firstName: "T", lastName: "One", department: "Legal" },
      ]),
    );
    const conflicts = [
      {
        line: 2,
        email: "twin@acme.example",
        error: "conflicts with line 4: the same e-mail with other values",
      },
      {
        line: 4,
        email: "TWIN@acme.example",
        error: "conflicts with line 2: the same e-mail with other values",
      },
    ];
    const plan = await b.run(["employees", "sync", file, "--plan", "--json"]);
    expect(plan.code).toBe(0);
    const p = JSON.parse(plan.stdout);
    expect(p.invalid).toEqual(conflicts);
    expect(p.counts).toMatchObject({ rows: 3, new: 1, invalid: 2 });
    expect(plan.stderr).toContain("twins.csv:2: conflicts with line 4");
    b.sent();

    const refused = await b.run(["employees", "sync", file, "--yes"]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("2 of 3 rows are invalid; nothing was sent");
    expect(refused.stderr).toContain("twins.csv:4: conflicts with line 2");
    expect(b.sent()).toEqual([]);

    const skipped = await b.run(["employees", "sync", file, "--skip-invalid", "--yes", "--json"]);
    expect(skipped.code).toBe(0);
    const out = JSON.parse(skipped.stdout);
    expect(out.invalid).toEqual(conflicts);
    expect(out.upsert).toMatchObject({ sent: 1, invalid: 2 });
    expect(readFileSync(out.upsert.rejects, "utf8")).toContain("Legal");
    const upserts = writes(b.sent());
    expect(upserts.map((r) => (r.body as Array<{ email: string }>).map((e) => e.email))).toEqual([
      ["solo@acme.example"],
    ]);
  });
});
