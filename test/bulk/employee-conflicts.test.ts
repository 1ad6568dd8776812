/**
 * `employees upsert`: two rows of one employee that differ are a conflict, not a repeat, through main(argv)
 * against the sandbox.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { BulkResult } from "../../src/bulk/engine/summary.js";
import { checkWorker, useScenarios } from "../helpers/cli.js";

const t = useScenarios();

const isUpsert = (r: { method: string; path: string }) =>
  r.method === "POST" && r.path === "/employees/upsert";

describe("two rows of one employee that differ are a conflict, not a repeat", () => {
  const header = "email,firstName,lastName,department";
  const file = (cwd: string) => {
    const path = join(cwd, "staff.csv");
    writeFileSync(
      path,
      [
        header,
        "ann@example.com,Ann,Lee,Sales", // 2: conflicts with 4
        "bob@example.com,Bob,Ray,Ops", // 3
        "ANN@example.com,Ann,Lee,Marketing", // 4: one e-mail (case aside), other values
        "Bob@Example.com,Bob,Ray,Ops", // 5: the same as 3 but for the e-mail's case: a repeat
        "cy@example.com,Cy,Tan,Ops", // 6
        "ann@example.com,Ann,Lee,Sales", // 7: the same as 2, which conflicts with 4
        "dee@example.com,Dee,Fox,Ops", // 8
      ].join("\n"),
    );
    return path;
  };

  it("without --skip-invalid: exit 2 naming both lines of each conflict; nothing is sent", async () => {
    const { cwd, env } = t.scenario();
    const path = file(cwd);
    const mark = t.sandbox.requests.length;
    const run = await t.run(["employees", "upsert", path], { env });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("error: 3 of 7 rows are invalid; nothing was sent:");
    const reason = "the same e-mail with other values (one row per employee)";
    expect(run.stderr).toContain(`${path}:2: conflicts with line 4: ${reason}`);
    expect(run.stderr).toContain(`${path}:4: conflicts with line 2: ${reason}`);
    expect(run.stderr).toContain(`${path}:7: conflicts with line 4: ${reason}`);
    expect(run.stderr).not.toMatch(/:(3|5|6|8): /);
    expect(t.sandbox.requests.slice(mark).filter(isUpsert)).toEqual([]);
  });

  it("with --skip-invalid: the conflicting rows go to the rejects file naming each other, the rest is sent once", async () => {
    const { cwd, env } = t.scenario();
    const path = file(cwd);
    const mark = t.sandbox.requests.length;
    const run = await t.run(["employees", "upsert", path, "--skip-invalid", "--json"], { env });
    expect(run.code).toBe(0);
    const summary = run.json<BulkResult>();
    expect(summary).toMatchObject({ rows: 7, valid: 4, invalid: 3, duplicates: 1, sent: 3, failed: 0 });
    expect(summary.invalidRows.map((r) => [r.line, r.label, r.error])).toEqual([
      [2, "ann@example.com", expect.stringMatching(/^conflicts with line 4: the same e-mail/)],
      [4, "ANN@example.com", expect.stringMatching(/^conflicts with line 2: the same e-mail/)],
      [7, "ann@example.com", expect.stringMatching(/^conflicts with line 4: the same e-mail/)],
    ]);
    expect(summary.duplicateRows).toEqual([
      { line: 5, label: "Bob@Example.com", error: "repeats an earlier row; sent once" },
    ]);
    const sent = t.sandbox.requests
      .slice(mark)
      .filter(isUpsert)
      .flatMap((r) => (r.body as Array<{ email: string }>).map((e) => e.email));
    expect(sent).toEqual(["bob@example.com", "cy@example.com", "dee@example.com"]);
    const rejects = readFileSync(path.replace(/\.csv$/, ".rejects.csv"), "utf8")
      .trim()
      .split(/\r?\n/);
    expect(rejects).toEqual([
      `${header},error`,
      "ann@example.com,Ann,Lee,Sales,line 2: conflicts with line 4: the same e-mail with other values (one row per employee)",
      "ANN@example.com,Ann,Lee,Marketing,line 4: conflicts with line 2: the same e-mail with other values (one row per employee)",
      "ann@example.com,Ann,Lee,Sales,line 7: conflicts with line 4: the same e-mail with other values (one row per employee)",
    ]);
    expect(run.stderr).toContain("3 invalid rows were skipped");
    expect(run.stderr).toContain("1 row repeats an earlier row and was not sent again:");
  });

  it("a JSON file too, with its lines", async () => {
    const { cwd, env } = t.scenario();
    const path = join(cwd, "staff.json");
    writeFileSync(
      path,
      `[\n${[
        { email: "jo@example.com", firstName: "Jo", lastName: "A" },
        { email: "kim@example.com", firstName: "Kim", lastName: "B" },
        { email: "JO@example.com", firstName: "Joanna", lastName: "A" },
      ]
        .map((item) => JSON.stringify(item))
        .join(",\n")}\n]\n`,
    );
    const run = await t.run(["employees", "upsert", path], { env });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`${path}:2: conflicts with line 4`);
    expect(run.stderr).toContain(`${path}:4: conflicts with line 2`);
  });

  it("invite rows are not affected: a repeated e-mail with another name is a repeat, sent once", async () => {
    const { cwd, env } = t.scenario();
    const path = join(cwd, "invite-repeat.csv");
    writeFileSync(path, "email,name\nrepeat.me@example.com,Ann\nREPEAT.ME@example.com,Annabel\n");
    const run = await t.run(["invite", "bulk", path, "--test", "1001", "--json"], { env });
    expect(run.code).toBe(0);
    expect(run.json<BulkResult>()).toMatchObject({ rows: 2, invalid: 0, duplicates: 1, sent: 1 });
    expect(run.json<BulkResult>().duplicateRows[0]).toMatchObject({
      line: 3,
      error: "repeats an earlier row; sent once",
    });
  });

  // The same file sent with --skip-invalid (every other employee once, the rejects file): `npm run bench:large
  // -- --only conflicts`.
  it("a file checked in two halves (the second in a worker thread): conflicts within and across the halves", async () => {
    // ~100 KB, split from 64 KiB (a file above 8 MiB takes the same path: test/bulk/parallel-check.test.ts).
    const ROWS = 1_300;
    const { cwd, env } = t.scenario();
    const path = join(cwd, "split-staff.csv");
    const lines = ["email,firstName,lastName,externalEmployeeId,department"];
    for (let i = 0; i < ROWS; i++) {
      lines.push(
        i === 1_200
          ? "EMPLOYEE1000@example.com,Other,Name,EXT-1000,Department 0" // line 1202: conflicts with 1002
          : `employee${i}@example.com,First${i},Last${i},EXT-${i},Department ${i % 50}`,
      );
    }
    lines.push("employee10@example.com,First10,Last10,EXT-10,Department 99"); // 1302: conflicts with 12
    lines.push("employee20@example.com,First20,Last20,EXT-20,Department 20"); // 1303: repeats 22
    writeFileSync(path, `${lines.join("\n")}\n`);

    const reason = "the same e-mail with other values (one row per employee)";
    const listed = [
      `  ${path}:12: conflicts with line 1302: ${reason}`,
      `  ${path}:1002: conflicts with line 1202: ${reason}`,
      `  ${path}:1202: conflicts with line 1002: ${reason}`,
      `  ${path}:1302: conflicts with line 12: ${reason}`,
    ];
    const errorBlock = (stderr: string) => {
      const all = stderr.split("\n").filter((line) => !line.startsWith("[debug]"));
      const at = all.findIndex((line) => line.startsWith("error:"));
      return all.slice(at, at + 5);
    };
    const mark = t.sandbox.requests.length;
    const split = await t.run(["employees", "upsert", path, "--debug"], {
      checkWorker,
      splitFrom: 64 * 1024,
      env,
    });
    expect(split.stderr).toContain("in two halves at once");
    expect(split.code).toBe(2);
    expect(errorBlock(split.stderr)).toEqual([
      `error: 4 of ${ROWS + 2} rows are invalid; nothing was sent:`,
      ...listed,
    ]);
    // One reader through the whole file finds the same (with a ledger of its own, as the next run).
    const onePass = await t.run(["employees", "upsert", path], { env: t.scenario().env });
    expect(onePass.code).toBe(2);
    expect(errorBlock(onePass.stderr)).toEqual(errorBlock(split.stderr));
    expect(t.sandbox.requests.slice(mark).filter(isUpsert)).toEqual([]);
  });
});
