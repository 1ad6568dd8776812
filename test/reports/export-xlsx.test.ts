/**
 * `reports export --out x.xlsx` writes a workbook, through the built CLI against the sandbox.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import readXlsxFile from "read-excel-file/node";
import { describe, expect, it } from "vitest";
import { runBin, useScenarios } from "../helpers/cli.js";

const t = useScenarios();
const { scenario } = t;

describe("reports export --out x.xlsx writes a workbook", () => {
  it("a real .xlsx: its header row, numbers as numbers, one row per attempt", async () => {
    const { cwd, env } = scenario();
    const csv = await runBin(["reports", "export", "--from", "10d", "--to", "now", "--json"], { cwd, env });
    const rows = csv.json<Array<{ testInvitationId: number; scorePercentage: number | null }>>();
    expect(rows.length).toBeGreaterThan(0);
    const r = await runBin(["reports", "export", "--from", "10d", "--to", "now", "--out", "results.xlsx"], {
      cwd,
      env,
    });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("");
    const bytes = readFileSync(join(cwd, "results.xlsx"));
    expect(bytes.subarray(0, 2).toString("latin1")).toBe("PK");
    const [sheet] = await readXlsxFile(join(cwd, "results.xlsx"));
    const data = sheet!.data as unknown[][];
    expect(data[0]?.slice(0, 3)).toEqual(["Invitation ID", "Candidate", "Email"]);
    expect(data.length).toBe(rows.length + 1);
    expect(data.slice(1).map((row) => row[0])).toEqual(rows.map((row) => row.testInvitationId));
    const score = data[0]!.indexOf("Score %");
    expect(data.slice(1).map((row) => row[score] ?? null)).toEqual(rows.map((row) => row.scorePercentage));
  });

  it("other spreadsheet names, and -o csv with .xlsx, are refused before any request (exit 2)", async () => {
    const { cwd, env } = scenario();
    const mark = t.sandbox.requests.length;
    const xls = await runBin(["reports", "export", "--from", "10d", "--to", "now", "--out", "r.xls"], {
      cwd,
      env,
    });
    expect(xls.code).toBe(2);
    expect(xls.stderr).toContain("error: --out r.xls: assess writes no .xls files");
    const asCsv = await runBin(
      ["reports", "export", "--from", "10d", "--to", "now", "--out", "r.xlsx", "-o", "csv"],
      {
        cwd,
        env,
      },
    );
    expect(asCsv.code).toBe(2);
    expect(asCsv.stderr).toContain(
      "error: --out r.xlsx names an Excel workbook, but -o csv asks for csv text",
    );
    expect(t.sandbox.requests.slice(mark)).toEqual([]);
    expect(readdirSync(cwd).filter((f) => f !== ".config")).toEqual([]);
  });
});
