/**
 * Issue 24, "The first week", items 10, 11 and part of 13, through the built CLI (`node bin/assess.js` in a
 * child process, stdio on pipes; `auth login` in a pseudo-terminal) against the sandbox.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import readXlsxFile from "read-excel-file/node";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { runBin, SANDBOX_KEYS, startTestEnv, type TestEnv } from "../helpers/cli.js";
import { KEY, Terminal } from "../links/terminal.js";

let t: TestEnv;
let dir: string;
beforeAll(async () => {
  t = await startTestEnv();
  dir = mkdtempSync(join(tmpdir(), "assess-first-week-b2-"));
});
afterEach(() => t.sandbox.faults.clear());
afterAll(async () => {
  await t.close();
  rmSync(dir, { recursive: true, force: true });
});

let folders = 0;
/** A folder of its own (the working folder of a run, its files) and a config folder (ledgers) for one scenario. */
function scenario(): { cwd: string; env: Record<string, string> } {
  const cwd = join(dir, `scenario-${folders++}`);
  mkdirSync(cwd);
  return { cwd, env: { ...t.env, ASSESS_CONFIG_DIR: join(cwd, ".config") } };
}

const invited = (email: string) => t.sandbox.state.invitations.filter((i) => i.email === email).length;

describe("item 10: - is standard input; a missing file says so", () => {
  it("`invite bulk - --test 1001` reads CSV from stdin", async () => {
    const { cwd, env } = scenario();
    const r = await runBin(["invite", "bulk", "-", "--test", "1001"], {
      cwd,
      env,
      stdin: "email,name\nstdin.one@example.com,Stdin One\nstdin.two@example.com,Stdin Two\n",
    });
    expect(r.stderr).not.toMatch(/ENOENT|error:/);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain("stdin: 2 rows: 2 sent");
    expect([invited("stdin.one@example.com"), invited("stdin.two@example.com")]).toEqual([1, 1]);
  });

  it("`employees upsert -` reads a JSON array or CSV from stdin; invalid rows name stdin and go to stdin.rejects.*", async () => {
    const { cwd, env } = scenario();
    const json = await runBin(["employees", "upsert", "-", "--json"], {
      cwd,
      env,
      stdin: JSON.stringify([{ email: "json.stdin@example.com", firstName: "Json", lastName: "Stdin" }]),
    });
    expect(json.code).toBe(0);
    expect(json.json<{ sent: number }>().sent).toBe(1);
    const csv = await runBin(["employees", "upsert", "-", "--skip-invalid"], {
      cwd,
      env,
      stdin: "email,firstName,lastName\ncsv.stdin@example.com,Csv,Stdin\nnot-an-email,Bad,Row\n",
    });
    expect(csv.code).toBe(0);
    expect(csv.stderr).toMatch(/stdin:3 {2}not-an-email/);
    expect(readdirSync(cwd).filter((f) => f !== ".config")).toEqual(["stdin.rejects.csv"]);
    expect(readFileSync(join(cwd, "stdin.rejects.csv"), "utf8")).toContain("not-an-email,Bad,Row,");
  });

  it("`--file -` of the JSON-body commands reads stdin too (tests settings set, employees add-certificate)", async () => {
    const { cwd, env } = scenario();
    const got = await runBin(["tests", "settings", "get", "1003", "--json"], { cwd, env });
    const settings = got.json<Record<string, unknown>>();
    const mark = t.sandbox.requests.length;
    const set = await runBin(["tests", "settings", "set", "1003", "--file", "-"], {
      cwd,
      env,
      stdin: JSON.stringify({ ...settings, randomQuestions: 1 }),
    });
    expect(set.stderr).not.toMatch(/error:/);
    expect(set.code).toBe(0);
    const posted = t.sandbox.requests.slice(mark).find((r) => r.method === "POST");
    expect(posted?.body).toMatchObject({ randomQuestions: 1 });
    const cert = await runBin(["employees", "add-certificate", "541", "--file", "-"], {
      cwd,
      env,
      stdin: JSON.stringify({ title: "Stdin Certificate", issuer: "Pipes Inc" }),
    });
    expect(cert.stderr).not.toMatch(/error:/);
    expect(cert.code).toBe(0);
    const missing = await runBin(["tests", "settings", "set", "1003", "--file", "nope.json"], { cwd, env });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("error: --file: nope.json does not exist");
  });

  it.each([
    ["invite bulk", ["invite", "bulk", "nope.csv", "--test", "1001"], "nope.csv"],
    ["employees upsert", ["employees", "upsert", "nope.json"], "nope.json"],
    ["employees upsert (CSV)", ["employees", "upsert", "nope.csv"], "nope.csv"],
  ])("%s of a file that does not exist: exit 2, said in words, nothing sent", async (_name, argv, file) => {
    const { cwd, env } = scenario();
    const mark = t.sandbox.requests.length;
    const r = await runBin(argv, { cwd, env });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`error: ${file} does not exist`);
    expect(r.stderr).toMatch(/hint: Check the file's name and folder .*, or give - to read standard input\./);
    expect(r.stderr).not.toContain("ENOENT");
    expect(t.sandbox.requests.slice(mark)).toEqual([]);
  });
});

describe("item 11: reports export --out x.xlsx writes a workbook", () => {
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

describe("item 13", () => {
  it('the summary never counts a row twice: "1 row: 1 refused", not "1 sent, 1 refused"', async () => {
    const { cwd, env } = scenario();
    writeFileSync(join(cwd, "one.csv"), "email,name\nrefused.once@example.com,Refused Once\n");
    t.sandbox.faults.add({ method: "POST", path: "/v3/tests/*/invite/bulk", kind: "status", status: 400 });
    const r = await runBin(["invite", "bulk", "one.csv", "--test", "1001"], { cwd, env });
    expect(r.stderr).toContain("one.csv: 1 row: 1 refused\n");
    expect(r.stderr).not.toMatch(/1 sent/);
    expect(r.json<{ rows: number; sent: number; failed: number }>()).toMatchObject({
      rows: 1,
      sent: 1,
      failed: 1,
    });
  });

  it("`invite send` keeps STATUS (Pending) in TSV and JSON", async () => {
    const { env } = scenario();
    const argv = ["invite", "send", "--test", "1001", "--name", "Status Kept"];
    const tsv = await runBin([...argv, "--email", "status.tsv@example.com"], { env });
    const [header, row] = tsv.stdout.trim().split("\n");
    expect(header).toBe("INVITATION\tTEST URL\tSTATUS");
    expect(row).toMatch(/^\d+\thttps?:\/\/\S+\tPending$/);
    const json = await runBin([...argv, "--email", "status.json@example.com", "--json"], { env });
    expect(json.json<{ status: string }>().status).toBe("Pending");
  });

  it("reruns with the same invalid rows write no -2 copy and never say ✓ Nothing to send", async () => {
    const { cwd, env } = scenario();
    const file = join(cwd, "round.csv");
    writeFileSync(
      file,
      "email,name\nround.valid@example.com,Valid\nnot-an-email,Bad One\nalso bad,Bad Two\n",
    );
    const argv = ["invite", "bulk", "round.csv", "--test", "1001", "--skip-invalid"];
    const first = await runBin(argv, { cwd, env });
    expect(first.code).toBe(0);
    const rejects = readFileSync(join(cwd, "round.rejects.csv"), "utf8");
    for (const _ of [1, 2]) {
      const again = await runBin(argv, { cwd, env });
      expect(again.code).toBe(0);
      expect(again.stderr).not.toContain("Nothing to send");
      expect(again.stderr).not.toContain("✓");
      expect(again.stderr).toContain(
        "warning: Nothing sent: earlier runs already got every valid row confirmed; 2 invalid rows still to fix (in round.rejects.csv), then run the same command again.",
      );
    }
    expect(
      readdirSync(cwd)
        .filter((f) => f !== ".config")
        .sort(),
    ).toEqual(["round.csv", "round.rejects.csv"]);
    expect(readFileSync(join(cwd, "round.rejects.csv"), "utf8")).toBe(rejects);
    // Other rejected rows are another file: the earlier one may be being fixed.
    writeFileSync(file, "email,name\nround.valid@example.com,Valid\nstill bad,Bad Three\n");
    const other = await runBin(argv, { cwd, env });
    expect(other.stderr).toContain("(in round.rejects-2.csv)");
    expect(readFileSync(join(cwd, "round.rejects-2.csv"), "utf8")).toContain("still bad");
    expect(invited("round.valid@example.com")).toBe(1);
  });

  it("an empty file suggests the header of its kind: employees for upsert, candidates for invite bulk", async () => {
    const { cwd, env } = scenario();
    writeFileSync(join(cwd, "empty.csv"), "");
    const upsert = await runBin(["employees", "upsert", "empty.csv"], { cwd, env });
    expect(upsert.code).toBe(2);
    expect(upsert.stderr).toContain("empty.csv:1: the file is empty: nothing to send");
    expect(upsert.stderr).toContain("(for example: email,firstName,lastName,externalEmployeeId,department)");
    const invite = await runBin(["invite", "bulk", "empty.csv", "--test", "1001"], { cwd, env });
    expect(invite.code).toBe(2);
    expect(invite.stderr).toContain("(for example: email,name)");
  });

  it("`auth login` echoes nothing for the key it reads, not a * per character", async () => {
    const { env } = scenario();
    const { ASSESS_API_KEY: _key, ...rest } = env;
    const term = Terminal.start(["auth", "login"], rest);
    try {
      await term.waitFor("API key");
      term.type(`${SANDBOX_KEYS.acme}${KEY.enter}`);
      expect(await term.exited).toBe(0);
      // What the prompt drew while the key was typed: no character of it, no mask (the stored key is
      // named redacted afterwards, `****1b3d`).
      const [prompt, after] = term.screen.split("✓ Key ");
      expect(after).toMatch(/^\*{4}\w{4} verified and stored/);
      expect(prompt).toContain("API key");
      expect(prompt).not.toContain("*");
      expect(prompt).not.toContain(SANDBOX_KEYS.acme.slice(0, 8));
    } finally {
      term.kill();
    }
  });

  it.each([
    ["invite", "send"],
    ["invite", "bulk"],
    ["invite", "reattempt"],
    ["links", "create"],
    ["links", "update"],
  ])(
    "`%s %s --help`: --timezone says where ids come from and which the sandbox knows",
    async (...command) => {
      const r = await runBin([...command, "--help"], { env: { COLUMNS: "200" } });
      expect(r.code).toBe(0);
      const help = r.stdout.replace(/\s+/g, " ");
      expect(help).toContain("--timezone <id>");
      expect(help).toContain(
        "an integer id of the service's List timezones operation (its path is not published",
      );
      expect(help).toContain("the sandbox takes any integer, its demo links use 1720");
    },
  );
});
