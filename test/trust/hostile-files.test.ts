/**
 * Hostile files: what assess writes beside the user's files and keeps in its
 * config folder, tried as an attacker (or a tired user) would leave things. Through `main(argv)` against the
 * sandbox on loopback, with files and links crafted in a temp folder (helpers and inputs: fixtures/hostile/).
 *
 * - The rejects file of `invite bulk` / `employees upsert` never replaces a file or writes through a link without
 *   --force (exit 2, nothing sent); with --force a link is replaced, its target left alone; it is written under a
 *   temporary name and moved into place.
 * - Its cells are neutralised for spreadsheets by the very function `-o csv` uses, and read back as they were.
 * - Ledgers: a linked or world-writable ledger folder and a linked ledger file are refused (exit 2, nothing sent);
 *   unreadable ledger lines are warned about.
 * - `reports pdf --out` checks its folder (and what is at the path) before downloading; `callbacks listen --log`
 *   creates its file 0600.
 */
import {
  chmodSync,
  copyFileSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { parse } from "csv-parse/sync";
import { beforeAll, describe, expect, it } from "vitest";
import { changedFiles, plantLink, snapshotFiles } from "../../fixtures/hostile/files.js";
import type { BulkResult } from "../../src/bulk/engine/summary.js";
import { neutralizeFormula } from "../../src/output/format.js";
import { isBulkInvite, isUpsert, ROOT, writeCandidates } from "../bulk/helpers.js";
import { startLiveCli } from "../callbacks/live.js";
import { type RunResult, useTempDir, useTestEnv } from "../helpers/cli.js";

const HOSTILE = join(ROOT, "fixtures", "hostile");

const env = useTestEnv();
const tmp = useTempDir("assess-trust-hostile-files-");
let n = 0;

/** A folder of its own for each test: inputs, outputs and decoys side by side. */
function folder(): string {
  const dir = tmp.file(`case-${n++}`);
  mkdirSync(dir);
  return dir;
}

/** A config folder of its own (ledgers start empty), made 0700 as mkdtemp would. */
function configDir(): string {
  const dir = tmp.file(`config-${n++}`);
  mkdirSync(dir, { mode: 0o700 });
  return dir;
}

/** Requests the sandbox received since `mark` that carry rows (bulk invites, upserts) or fetch a PDF. */
function sentSince(mark: number) {
  return env.sandbox.requests
    .slice(mark)
    .filter((r) => isBulkInvite(r) || isUpsert(r) || /\/pdf$/.test(r.path));
}

/** A usage error as the CLI's contract wants it: exit 2, the message, something to do next, no stack trace, no "bug". */
function expectUsageError(r: RunResult, message: RegExp): void {
  expect(r.code, r.stderr).toBe(2);
  expect(r.stderr).toMatch(message);
  expect(r.stderr).not.toMatch(/looks like a bug|\n\s+at \S+ \(|node:internal/);
}

const VICTIM_TEXT = "precious: someone else's file, must never change\n";

describe("the rejects file never clobbers a file or writes through a link", () => {
  /** An invite file with one valid row and one invalid one (so --skip-invalid has a row to reject). */
  function mixedInput(dir: string): string {
    const file = join(dir, "mixed.csv");
    writeFileSync(file, `email,name\nok${n}@example.com,Ok\nnot-an-email,Bad\n`);
    return file;
  }

  /** An employee file with one row. */
  function staffInput(dir: string): string {
    const file = join(dir, "staff.csv");
    writeFileSync(file, `email,firstName,lastName,jobCode\nstaff${n}@example.com,Staff,Row,QA1\n`);
    return file;
  }

  it("an existing rejects file (given or the default one) → exit 2 before anything is sent; content unchanged", async () => {
    const dir = folder();
    const input = mixedInput(dir);
    const given = join(dir, "fixing.csv");
    const byDefault = join(dir, "mixed.rejects.csv");
    writeFileSync(given, "email,name,error\nfixed@example.com,Being fixed by hand,\n");
    writeFileSync(byDefault, "an earlier run's rejects, being fixed\n");
    const before = snapshotFiles([given, byDefault]);
    const mark = env.sandbox.requests.length;

    const r = await env.run([
      "invite",
      "bulk",
      input,
      "--test",
      "1001",
      "--skip-invalid",
      "--rejects",
      given,
    ]);
    expectUsageError(r, /The rejects file .*fixing\.csv already exists/);
    expect(r.stderr).toMatch(/--force/);
    expect(r.stderr).toMatch(/nothing was sent/);

    const e = await env.run(["employees", "upsert", staffInput(dir), "--rejects", given]);
    expectUsageError(e, /The rejects file .*fixing\.csv already exists/);

    expect(sentSince(mark)).toEqual([]);
    expect(changedFiles(before)).toEqual([]);
  });

  it("beside the input, an earlier run's rejects file (or a link there) is kept: the rerun writes the next free name", async () => {
    const dir = folder();
    const input = mixedInput(dir);
    const first = join(dir, "mixed.rejects.csv");
    writeFileSync(first, "an earlier run's rejects, being fixed\n");
    const decoy = join(dir, "decoy.txt");
    writeFileSync(decoy, "not to be touched\n");
    symlinkSync(decoy, join(dir, "mixed.rejects-2.csv"));
    const before = snapshotFiles([first, decoy, join(dir, "mixed.rejects-2.csv")]);

    const r = await env.run(["invite", "bulk", input, "--test", "1001", "--skip-invalid", "--json"]);
    expect(r.code, r.stderr).toBe(0);
    const third = join(dir, "mixed.rejects-3.csv");
    expect(r.json<{ rejects: string | null }>().rejects).toBe(third);
    expect(readFileSync(third, "utf8")).toMatch(/^email,name,error/);
    expect(changedFiles(before)).toEqual([]);
  });

  it("a link at --rejects (to a file, or dangling) → exit 2, nothing sent, the target and the link unchanged", async () => {
    const dir = folder();
    const input = mixedInput(dir);
    const elsewhere = folder();
    const victim = join(elsewhere, "victim.txt");
    writeFileSync(victim, VICTIM_TEXT);
    const link = join(dir, "rejects.csv");
    plantLink(link, victim);
    const dangling = join(dir, "dangling.csv");
    const wouldBeCreated = join(elsewhere, "created-through-the-link.csv");
    plantLink(dangling, wouldBeCreated);
    const before = snapshotFiles([victim, link, dangling, wouldBeCreated, elsewhere]);
    const mark = env.sandbox.requests.length;

    const r = await env.run(["invite", "bulk", input, "--test", "1001", "--skip-invalid", "--rejects", link]);
    expectUsageError(r, /The rejects file .*rejects\.csv is a symbolic link \(to .*victim\.txt\)/);
    expect(r.stderr).toMatch(/--force to replace the link itself/);

    const g = await env.run([
      "invite",
      "bulk",
      input,
      "--test",
      "1001",
      "--skip-invalid",
      "--rejects",
      dangling,
    ]);
    expectUsageError(g, /dangling\.csv is a symbolic link/);

    const e = await env.run(["employees", "upsert", staffInput(dir), "--rejects", link]);
    expectUsageError(e, /is a symbolic link/);

    expect(sentSince(mark)).toEqual([]);
    expect(changedFiles(before)).toEqual([]);
  });

  it("--force replaces the link itself with the rejects file (0600): its target is left alone, no temporary file stays", async () => {
    const dir = folder();
    const input = mixedInput(dir);
    const elsewhere = folder();
    const victim = join(elsewhere, "victim.txt");
    writeFileSync(victim, VICTIM_TEXT);
    const link = join(dir, "rejects.csv");
    plantLink(link, victim);
    const before = snapshotFiles([victim, elsewhere]);

    const r = await env.run([
      "invite",
      "bulk",
      input,
      "--test",
      "1001",
      "--skip-invalid",
      "--rejects",
      link,
      "--force",
      "--json",
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.json<BulkResult>()).toMatchObject({ sent: 1, invalid: 1, rejects: link });
    expect(changedFiles(before)).toEqual([]);
    const info = lstatSync(link);
    expect(info.isFile()).toBe(true);
    expect(info.mode & 0o777).toBe(0o600);
    expect(readFileSync(link, "utf8")).toMatch(/^email,name,error\r\nnot-an-email,Bad,"line 3: email: /);
    expect(readdirSync(dir).sort()).toEqual(["mixed.csv", "rejects.csv"]);

    // An existing file is overwritten with --force, through the same temporary file.
    const again = await env.run([
      "invite",
      "bulk",
      input,
      "--test",
      "1001",
      "--skip-invalid",
      "--rejects",
      link,
    ]);
    expectUsageError(again, /already exists/);
    const forced = await env.run([
      "invite",
      "bulk",
      input,
      "--test",
      "1001",
      "--skip-invalid",
      "--rejects",
      link,
      "--force",
    ]);
    expect(forced.code, forced.stderr).toBe(0);
    expect(readFileSync(link, "utf8")).toMatch(/^email,name,error\r\nnot-an-email,Bad,"line 3: email: /);
    expect(readdirSync(dir).sort()).toEqual(["mixed.csv", "rejects.csv"]);
  });

  it("a --rejects in a folder that does not exist → exit 2 naming the folder, nothing sent", async () => {
    const dir = folder();
    const input = mixedInput(dir);
    const mark = env.sandbox.requests.length;
    const missing = join(dir, "no", "such");
    const r = await env.run([
      "invite",
      "bulk",
      input,
      "--test",
      "1001",
      "--skip-invalid",
      "--rejects",
      join(missing, "rejects.csv"),
    ]);
    expectUsageError(r, new RegExp(`the folder ${missing.replaceAll("/", "\\/")} does not exist`));
    expect(r.stderr).toMatch(/mkdir -p/);
    expect(sentSince(mark)).toEqual([]);
  });

  it("a dry run writes no rejects file, so an existing one does not stop it", async () => {
    const dir = folder();
    const input = mixedInput(dir);
    const existing = join(dir, "mixed.rejects.csv");
    writeFileSync(existing, "kept\n");
    const r = await env.run(["invite", "bulk", input, "--test", "1001", "--skip-invalid", "--dry-run"]);
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(existing, "utf8")).toBe("kept\n");
  });
});

describe("rejects files are formula-safe, by the rule of -o csv, and read back as they were", () => {
  const FORMULA = /^[=+\-@\t\r\n]/;

  it("invite bulk --skip-invalid: every rejected cell is neutralizeFormula(cell); fixed and fed back, the rows are sent as first written", async () => {
    const dir = folder();
    const input = join(dir, "formula-candidates.csv");
    copyFileSync(join(HOSTILE, "formula-candidates.csv"), input);
    const rejects = join(dir, "rejects.csv");
    const r = await env.run([
      "invite",
      "bulk",
      input,
      "--test",
      "1002",
      "--skip-invalid",
      "--rejects",
      rejects,
      "--json",
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.json<BulkResult>()).toMatchObject({ rows: 6, sent: 1, invalid: 5 });

    const original = parse(readFileSync(input), { relaxQuotes: true }) as string[][];
    const written = parse(readFileSync(rejects), { relaxQuotes: true }) as string[][];
    expect(written).toHaveLength(6);
    // Header as -o csv would write it, then each refused row: its cells neutralised by the one function.
    expect(written[0]).toEqual([...original[0]!, "error"].map(neutralizeFormula));
    const refused = original.slice(2);
    refused.forEach((row, i) => {
      const out = written[i + 1]!;
      expect(out.slice(0, row.length)).toEqual(row.map(neutralizeFormula));
      expect(out[row.length]).toMatch(/^line \d+: /);
    });
    for (const cell of written.flat()) expect(cell, cell).not.toMatch(FORMULA);
    // What a spreadsheet would have run is now text: =HYPERLINK, +…, -…, @…, a leading tab.
    expect(written.flat().filter((cell) => cell.startsWith("'")).length).toBeGreaterThanOrEqual(9);

    // Fix the e-mails (the neutralised cells left as the file has them) and feed the file back in.
    const emails = refused.map((_, i) => `fixed${i}.${n}@example.com`);
    const fixed = written.map((row, i) => (i === 0 ? row : [emails[i - 1]!, ...row.slice(1)]));
    const fixedFile = join(dir, "fixed.csv");
    writeFileSync(
      fixedFile,
      `${fixed.map((row) => row.map((c) => `"${c.replaceAll('"', '""')}"`).join(",")).join("\r\n")}\r\n`,
    );
    const mark = env.sandbox.requests.length;
    const back = await env.run(["invite", "bulk", fixedFile, "--test", "1002", "--json"]);
    expect(back.code, back.stderr).toBe(0);
    const names = sentSince(mark).flatMap(
      (req) => (req.body as { candidates: Array<{ email: string; name: string }> }).candidates,
    );
    // Names as the first file had them (trimmed, as every invite name is), not with the spreadsheet quote.
    expect(names).toEqual(refused.map((row, i) => ({ email: emails[i], name: row[1]!.trim() })));
  });

  it("employees upsert: a row the service refused lands neutralised; fixed and fed back, +44…, -20 and =HYPERLINK(…) arrive as written", async () => {
    const dir = folder();
    const input = join(dir, "formula-employees.csv");
    copyFileSync(join(HOSTILE, "formula-employees.csv"), input);
    const r = await env.run(["employees", "upsert", input, "--json"]);
    expect(r.code, r.stderr).toBe(3);
    const rejects = join(dir, "formula-employees.rejects.csv");
    const written = parse(readFileSync(rejects)) as string[][];
    expect(written[1]!.slice(0, 7)).toEqual([
      "refused@example.com",
      "Refused",
      "Row",
      "NOPE9",
      "'+44 20 7946 0002",
      "'-20",
      `'=HYPERLINK("http://evil.example/")`,
    ]);
    for (const cell of written.flat()) expect(cell).not.toMatch(FORMULA);

    writeFileSync(rejects, readFileSync(rejects, "utf8").replace("NOPE9", "QA1"));
    const mark = env.sandbox.requests.length;
    const back = await env.run([
      "employees",
      "upsert",
      rejects,
      "--rejects",
      join(dir, "again.csv"),
      "--json",
    ]);
    expect(back.code, back.stderr).toBe(0);
    const [sent] = sentSince(mark).flatMap((req) => req.body as Array<Record<string, unknown>>);
    expect(sent).toMatchObject({
      email: "refused@example.com",
      jobCode: "QA1",
      employeeHRMSInfo: {
        customFieldWithValue: {
          Phone: "+44 20 7946 0002",
          Balance: "-20",
          Website: `=HYPERLINK("http://evil.example/")`,
        },
      },
    });
  });
});

describe("ledgers are files of their own, in a folder of the user's own", () => {
  const invite = (file: string, config: string, ...more: string[]) =>
    env.run(["invite", "bulk", file, "--test", "1001", "--json", ...more], {
      env: { ASSESS_CONFIG_DIR: config },
    });

  it("a ledgers folder that is a link to a 0777 folder → exit 2, nothing sent, nothing written there (with and without --skip-invalid)", async () => {
    const config = configDir();
    const outside = folder();
    chmodSync(outside, 0o777);
    plantLink(join(config, "ledgers"), outside);
    const file = join(folder(), "c.csv");
    writeCandidates(file, 5, 7_100_000);
    const mark = env.sandbox.requests.length;

    for (const more of [[], ["--skip-invalid"], ["--dry-run"]]) {
      const r = await invite(file, config, ...more);
      expectUsageError(r, /ledgers \(where bulk runs keep their ledgers\) is a symbolic link/);
      expect(r.stderr).toMatch(/ASSESS_CONFIG_DIR/);
    }
    expect(sentSince(mark)).toEqual([]);
    expect(readdirSync(outside)).toEqual([]);
  });

  it("a ledgers folder other users can write to → exit 2 naming its mode and the chmod to run, nothing sent", async () => {
    const config = configDir();
    const ledgers = join(config, "ledgers");
    mkdirSync(ledgers);
    chmodSync(ledgers, 0o770);
    const file = join(folder(), "c.csv");
    writeCandidates(file, 5, 7_200_000);
    const mark = env.sandbox.requests.length;
    const r = await invite(file, config);
    expectUsageError(r, /can be written by other users \(mode 0770\)/);
    expect(r.stderr).toContain(`chmod 700 ${ledgers}`);
    expect(sentSince(mark)).toEqual([]);
    expect(readdirSync(ledgers)).toEqual([]);

    // Once it is the user's alone, the same command runs.
    chmodSync(ledgers, 0o700);
    const ok = await invite(file, config);
    expect(ok.code, ok.stderr).toBe(0);
  });

  it("a ledger file replaced by a link to another file → exit 2, nothing sent, the other file unchanged", async () => {
    const config = configDir();
    const dir = folder();
    const file = join(dir, "c.csv");
    writeCandidates(file, 5, 7_300_000);
    expect((await invite(file, config)).code).toBe(0);
    const ledgers = join(config, "ledgers");
    const [name] = readdirSync(ledgers).filter((f) => f.endsWith(".ndjson"));
    const ledger = join(ledgers, name!);
    // The attacker's file: a copy of the ledger (plausible content), linked in the ledger's place.
    const victim = join(folder(), "victim.ndjson");
    copyFileSync(ledger, victim);
    rmSync(ledger);
    plantLink(ledger, victim);
    writeCandidates(file, 10, 7_300_000); // 5 new rows that a rerun would send
    const before = snapshotFiles([victim, ledger]);
    const mark = env.sandbox.requests.length;

    for (const more of [[], ["--skip-invalid"], ["--dry-run"]]) {
      const r = await invite(file, config, ...more);
      expectUsageError(r, /The ledger .*\.ndjson is a symbolic link/);
    }
    expect(sentSince(mark)).toEqual([]);
    expect(changedFiles(before)).toEqual([]);
  });

  it("ledger lines it cannot read are warned about on stderr (which lines, what it means); the run goes on", async () => {
    const config = configDir();
    const file = join(folder(), "c.csv");
    writeCandidates(file, 5, 7_400_000);
    expect((await invite(file, config)).code).toBe(0);
    const ledgers = join(config, "ledgers");
    const [name] = readdirSync(ledgers).filter((f) => f.endsWith(".ndjson"));
    const ledger = join(ledgers, name!);
    const lines = readFileSync(ledger, "utf8").split("\n").length - 1;

    // One torn line: what a run that stopped while writing leaves.
    writeFileSync(ledger, `${readFileSync(ledger, "utf8")}{"t":"ok","c":"dead-`);
    const torn = await invite(file, config);
    expect(torn.code, torn.stderr).toBe(0);
    expect(torn.json<BulkResult>()).toMatchObject({ alreadyDone: 5, sent: 0 });
    expect(torn.stderr).toMatch(
      new RegExp(`warning: the ledger .*has 1 line \\(line ${lines + 1}\\) that could not be read, ignored`),
    );
    expect(torn.stderr).toMatch(/a run that stopped while writing a record leaves one such line/);

    // More, and JSON that is not a record: someone else changed the file.
    writeFileSync(ledger, `${readFileSync(ledger, "utf8")}\nnot json\n42\nnull\n[1,2]\n`);
    const changed = await invite(file, config);
    expect(changed.code, changed.stderr).toBe(0);
    expect(changed.json<BulkResult>()).toMatchObject({ alreadyDone: 5, sent: 0 });
    expect(changed.stderr).toMatch(
      new RegExp(
        `has 5 lines \\(lines ${lines + 1}, ${lines + 2}, ${lines + 3}, …\\) that could not be read`,
      ),
    );
    expect(changed.stderr).toMatch(/something else changed the file/);
    expect(changed.stderr).not.toMatch(/looks like a bug|\n\s+at /);
  });

  it("a ledgers folder made by assess is 0700, its ledger 0600", async () => {
    const config = configDir();
    const file = join(folder(), "c.csv");
    writeCandidates(file, 3, 7_500_000);
    expect((await invite(file, config)).code).toBe(0);
    const ledgers = join(config, "ledgers");
    expect(statSync(ledgers).mode & 0o777).toBe(0o700);
    for (const f of readdirSync(ledgers)) expect(statSync(join(ledgers, f)).mode & 0o777).toBe(0o600);
  });
});

describe("reports pdf --out is checked before the download; callbacks listen --log is 0600", () => {
  let attempt: number;
  beforeAll(async () => {
    const r = await env.run([
      "invite",
      "send",
      "--test",
      "1001",
      "--email",
      "pdf.hostile@example.com",
      "--name",
      "Pdf",
      "--json",
    ]);
    attempt = r.json<{ testInvitationId: number }>().testInvitationId;
    await env.sandbox.completeAttempt(attempt, "Complete");
  });

  it("--out in a missing folder → exit 2 naming the folder, before any download", async () => {
    const dir = folder();
    const missing = join(dir, "missing", "dir");
    const mark = env.sandbox.requests.length;
    const r = await env.run(["reports", "pdf", String(attempt), "--out", join(missing, "x.pdf")]);
    expectUsageError(
      r,
      new RegExp(`--out .*x\\.pdf: the folder ${missing.replaceAll("/", "\\/")} does not exist`),
    );
    expect(r.stderr).toMatch(/mkdir -p/);
    expect(sentSince(mark)).toEqual([]);
    expect(readdirSync(dir)).toEqual([]);
  });

  it("--out on an existing file or a link → exit 2 before the download; --force replaces the link, not its target", async () => {
    const dir = folder();
    const elsewhere = folder();
    const victim = join(elsewhere, "victim.pdf");
    writeFileSync(victim, VICTIM_TEXT);
    const existing = join(dir, "existing.pdf");
    writeFileSync(existing, "an earlier report");
    const link = join(dir, "link.pdf");
    plantLink(link, victim);
    const before = snapshotFiles([victim, existing, link]);
    const mark = env.sandbox.requests.length;

    expectUsageError(
      await env.run(["reports", "pdf", String(attempt), "--out", existing]),
      /existing\.pdf already exists/,
    );
    expectUsageError(
      await env.run(["reports", "pdf", String(attempt), "--out", link]),
      /link\.pdf is a symbolic link \(to .*victim\.pdf\)/,
    );
    expect(sentSince(mark)).toEqual([]);
    expect(changedFiles(before)).toEqual([]);

    const forced = await env.run(["reports", "pdf", String(attempt), "--out", link, "--force"]);
    expect(forced.code, forced.stderr).toBe(0);
    expect(lstatSync(link).isFile()).toBe(true);
    expect(readFileSync(link).subarray(0, 5).toString()).toBe("%PDF-");
    expect(readFileSync(victim, "utf8")).toBe(VICTIM_TEXT);
    expect(readdirSync(dir).sort()).toEqual(["existing.pdf", "link.pdf"]);
  });

  it("callbacks listen --log creates its file 0600 (it holds candidates' data)", async () => {
    const log = join(folder(), "callbacks.ndjson");
    const cli = startLiveCli(["callbacks", "listen", "--port", "0", "--log", log], env.env);
    try {
      await cli.waitFor("stderr", /Callback URL to use/);
      expect(statSync(log).mode & 0o777).toBe(0o600);
    } finally {
      await cli.stop();
    }
  });
});
