/**
 * Issue 20, "Rough edges a new user meets in the first hour": items 5, 11 and 12, against the sandbox —
 * through main(argv), and through the built CLI (`node bin/assess.js`) where a real stdout is the point.
 */
import { spawn } from "node:child_process";
import {
  closeSync,
  existsSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough, Readable, Writable } from "node:stream";
import { pathToFileURL } from "node:url";
import { spawn as spawnPty } from "@lydell/node-pty";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { BulkResult } from "../../src/bulk/engine/summary.js";
import { main } from "../../src/cli.js";
import type { Io } from "../../src/context.js";
import { formatCount } from "../../src/output/progress.js";
import { SANDBOX_KEYS, startTestEnv, type TestEnv } from "../helpers/cli.js";

const ROOT = join(import.meta.dirname, "..", "..");
const BIN = join(ROOT, "bin", "assess.js");
/** Built by the global setup, as bin/assess.js finds it: what makes a large file's check a split one. */
const checkWorker = pathToFileURL(join(ROOT, "dist", "check-worker.cjs"));

let t: TestEnv;
let dir: string;
beforeAll(async () => {
  t = await startTestEnv();
  dir = mkdtempSync(join(tmpdir(), "assess-first-hour-c-"));
});
afterEach(() => {
  t.sandbox.faults.clear();
});
afterAll(async () => {
  await t.close();
  rmSync(dir, { recursive: true, force: true });
});

let configs = 0;
/** A config folder of its own (ledgers included) for one scenario. */
const freshConfig = () => ({ ASSESS_CONFIG_DIR: join(dir, `config-${configs++}`) });

const isBulkInvite = (r: { method: string; path: string }) =>
  r.method === "POST" && /^\/v3\/tests\/\d+\/invite\/bulk$/.test(r.path);
const isUpsert = (r: { method: string; path: string }) =>
  r.method === "POST" && r.path === "/employees/upsert";

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Aborts `controller` once `n` bulk-invite requests have reached the sandbox since `mark`. */
function abortAfter(controller: AbortController, n: number, mark: number): () => void {
  const poll = setInterval(() => {
    if (t.sandbox.requests.slice(mark).filter(isBulkInvite).length >= n) controller.abort();
  }, 2);
  return () => clearInterval(poll);
}

describe("item 5: Ctrl-C during a bulk run counts the file's rows, not the rows read so far", () => {
  it("60,000 rows, interrupted after two requests: rows is 60,000, and sent + not sent make the file", async () => {
    const ROWS = 60_000;
    const file = join(dir, "sixty-thousand.csv");
    const lines = ["email,name"];
    for (let i = 0; i < ROWS; i++) lines.push(`ctrlc${i}@example.com,Candidate ${i}`);
    writeFileSync(file, `${lines.join("\n")}\n`);
    t.sandbox.faults.add({
      method: "POST",
      path: "/v3/tests/*/invite/bulk",
      kind: "latency",
      delayMs: 150,
      times: Number.POSITIVE_INFINITY,
    });
    const config = freshConfig();
    const controller = new AbortController();
    const mark = t.sandbox.requests.length;
    const stop = abortAfter(controller, 2, mark);
    const run = await t.run(["invite", "bulk", file, "--test", "1001", "--concurrency", "1", "--json"], {
      signal: controller.signal,
      env: config,
    });
    stop();
    expect(run.code).toBe(130);
    const summary = run.json<BulkResult>();
    expect(summary).toMatchObject({
      rows: ROWS,
      valid: ROWS,
      invalid: 0,
      duplicates: 0,
      alreadyDone: 0,
      uncertain: 0,
      interrupted: true,
    });
    // The request out when Ctrl-C came finished and counts as sent; nothing after it went out.
    expect(summary.sent).toBeGreaterThanOrEqual(2000);
    expect(summary.sent).toBeLessThan(10_000);
    expect(summary.sent + summary.unsent).toBe(ROWS);
    expect(t.sandbox.requests.slice(mark).filter(isBulkInvite)).toHaveLength(summary.chunks.total);
    expect(run.stderr).toContain(
      `${file}: 60,000 rows: ${formatCount(summary.sent)} sent, ${formatCount(ROWS - summary.sent)} not sent (interrupted)`,
    );
    expect(run.stderr).toMatch(/Interrupted: [\d,]+ candidates recorded in the ledger; run the same command/);

    // The rerun sends exactly what the first run said it had not.
    t.sandbox.faults.clear();
    const rerun = await t.run(["invite", "bulk", file, "--test", "1001", "--json"], { env: config });
    expect(rerun.code).toBe(0);
    expect(rerun.json<BulkResult>()).toMatchObject({
      rows: ROWS,
      alreadyDone: summary.sent,
      sent: summary.unsent,
    });
  });

  it("--skip-invalid: invalid rows and repeats past the interruption are counted (and rejected) as in a whole run", async () => {
    const ROWS = 20_000;
    const file = join(dir, "skip-interrupted.csv");
    const lines = ["email,name"];
    for (let i = 0; i < ROWS; i++) {
      // Two invalid rows early, three late; two late repeats of early rows.
      if (i === 10 || i === 15_000 || i === 19_990) lines.push(`not-an-email-${i},Bad ${i}`);
      else if (i === 20 || i === 19_999) lines.push(`,Nobody ${i}`);
      else if (i === 18_000) lines.push("skip1@example.com,Again");
      else if (i === 18_001) lines.push("SKIP2@example.com,Again");
      else lines.push(`skip${i}@example.com,Candidate ${i}`);
    }
    writeFileSync(file, `${lines.join("\n")}\n`);
    t.sandbox.faults.add({
      method: "POST",
      path: "/v3/tests/*/invite/bulk",
      kind: "latency",
      delayMs: 150,
      times: Number.POSITIVE_INFINITY,
    });
    const controller = new AbortController();
    const stop = abortAfter(controller, 1, t.sandbox.requests.length);
    const rejects = join(dir, "skip-interrupted.rejects.csv");
    const run = await t.run(
      ["invite", "bulk", file, "--test", "1002", "--concurrency", "1", "--skip-invalid", "--json"],
      { signal: controller.signal, env: freshConfig() },
    );
    stop();
    expect(run.code).toBe(130);
    const summary = run.json<BulkResult>();
    expect(summary).toMatchObject({
      rows: ROWS,
      valid: ROWS - 5,
      invalid: 5,
      duplicates: 2,
      interrupted: true,
    });
    expect(summary.sent + summary.unsent + summary.duplicates + summary.invalid).toBe(ROWS);
    expect(summary.invalidRows.map((r) => r.line)).toEqual([12, 22, 15_002, 19_992, 20_001]);
    expect(summary.duplicateRows.map((r) => [r.line, r.error])).toEqual([
      [18_002, "repeats an earlier row; sent once"],
      [18_003, "repeats an earlier row; sent once"],
    ]);
    // Every invalid row is in the rejects file, those after the interruption too.
    const rejected = readFileSync(rejects, "utf8").trim().split(/\r?\n/);
    expect(rejected).toHaveLength(6);
    expect(rejected.at(-1)).toMatch(/^,Nobody 19999,line 20001: /);
    expect(run.stderr).toContain(
      `20,000 rows: ${formatCount(summary.sent)} sent, 2 duplicates, 5 invalid, ${formatCount(summary.unsent)} not sent (interrupted)`,
    );
  });
});

describe("item 12: two rows of one employee that differ are a conflict, not a repeat", () => {
  const header = "email,firstName,lastName,department";
  const file = () => {
    const path = join(dir, `staff-${configs}.csv`);
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
    const path = file();
    const mark = t.sandbox.requests.length;
    const run = await t.run(["employees", "upsert", path], { env: freshConfig() });
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
    const path = file();
    const mark = t.sandbox.requests.length;
    const run = await t.run(["employees", "upsert", path, "--skip-invalid", "--json"], {
      env: freshConfig(),
    });
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
    const path = join(dir, "staff.json");
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
    const run = await t.run(["employees", "upsert", path], { env: freshConfig() });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`${path}:2: conflicts with line 4`);
    expect(run.stderr).toContain(`${path}:4: conflicts with line 2`);
  });

  it("invite rows are not affected: a repeated e-mail with another name is a repeat, sent once", async () => {
    const path = join(dir, "invite-repeat.csv");
    writeFileSync(path, "email,name\nrepeat.me@example.com,Ann\nREPEAT.ME@example.com,Annabel\n");
    const run = await t.run(["invite", "bulk", path, "--test", "1001", "--json"], { env: freshConfig() });
    expect(run.code).toBe(0);
    expect(run.json<BulkResult>()).toMatchObject({ rows: 2, invalid: 0, duplicates: 1, sent: 1 });
    expect(run.json<BulkResult>().duplicateRows[0]).toMatchObject({
      line: 3,
      error: "repeats an earlier row; sent once",
    });
  });

  it("a file checked in two halves (the second in a worker thread): conflicts within and across the halves", async () => {
    const ROWS = 130_000; // ~9 MB: above the 8 MiB where the check splits
    const path = join(dir, "split-staff.csv");
    const lines = ["email,firstName,lastName,externalEmployeeId,department"];
    for (let i = 0; i < ROWS; i++) {
      lines.push(
        i === 120_000
          ? "EMPLOYEE100000@example.com,Other,Name,EXT-100000,Department 0" // line 120002: conflicts with 100002
          : `employee${i}@example.com,First${i},Last${i},EXT-${i},Department ${i % 50}`,
      );
    }
    lines.push("employee10@example.com,First10,Last10,EXT-10,Department 99"); // 130002: conflicts with 12
    lines.push("employee20@example.com,First20,Last20,EXT-20,Department 20"); // 130003: repeats 22
    writeFileSync(path, `${lines.join("\n")}\n`);

    const reason = "the same e-mail with other values (one row per employee)";
    const listed = [
      `  ${path}:12: conflicts with line 130002: ${reason}`,
      `  ${path}:100002: conflicts with line 120002: ${reason}`,
      `  ${path}:120002: conflicts with line 100002: ${reason}`,
      `  ${path}:130002: conflicts with line 12: ${reason}`,
    ];
    const errorBlock = (stderr: string) => {
      const all = stderr.split("\n").filter((line) => !line.startsWith("[debug]"));
      const at = all.findIndex((line) => line.startsWith("error:"));
      return all.slice(at, at + 5);
    };
    const mark = t.sandbox.requests.length;
    const split = await t.run(["employees", "upsert", path, "--debug"], { checkWorker, env: freshConfig() });
    expect(split.stderr).toContain("in two halves at once");
    expect(split.code).toBe(2);
    expect(errorBlock(split.stderr)).toEqual([
      `error: 4 of ${ROWS + 2} rows are invalid; nothing was sent:`,
      ...listed,
    ]);
    // One reader through the whole file finds the same.
    const onePass = await t.run(["employees", "upsert", path], { env: freshConfig() });
    expect(onePass.code).toBe(2);
    expect(errorBlock(onePass.stderr)).toEqual(errorBlock(split.stderr));
    expect(t.sandbox.requests.slice(mark).filter(isUpsert)).toEqual([]);

    const skip = await t.run(["employees", "upsert", path, "--skip-invalid", "--json", "--debug"], {
      checkWorker,
      env: freshConfig(),
    });
    expect(skip.stderr).toContain("in two halves at once");
    expect(skip.code).toBe(0);
    expect(skip.json<BulkResult>()).toMatchObject({
      rows: ROWS + 2,
      valid: ROWS - 2,
      invalid: 4,
      duplicates: 1,
      sent: ROWS - 3,
    });
    expect(skip.json<BulkResult>().duplicateRows).toEqual([
      { line: 130_003, label: "employee20@example.com", error: "repeats an earlier row; sent once" },
    ]);
    const sent = new Map<string, number>();
    for (const r of t.sandbox.requests.slice(mark).filter(isUpsert))
      for (const e of r.body as Array<{ email: string }>)
        sent.set(e.email.toLowerCase(), (sent.get(e.email.toLowerCase()) ?? 0) + 1);
    expect(sent.size).toBe(ROWS - 3);
    expect([...sent.values()].every((n) => n === 1)).toBe(true);
    for (const gone of ["employee10@example.com", "employee100000@example.com"])
      expect(sent.has(gone)).toBe(false);
    expect(sent.get("employee20@example.com")).toBe(1);
    const rejects = readFileSync(path.replace(/\.csv$/, ".rejects.csv"), "utf8")
      .trim()
      .split(/\r?\n/);
    expect(
      rejects.slice(1).map((line) => line.replace(/^.*,(line \d+: conflicts with line \d+):.*$/, "$1")),
    ).toEqual([
      "line 12: conflicts with line 130002",
      "line 100002: conflicts with line 120002",
      "line 120002: conflicts with line 100002",
      "line 130002: conflicts with line 12",
    ]);
  });
});

describe("item 11: reports pdf writes to a redirected or piped stdout", () => {
  /** A finished attempt of the sandbox, with a report and a PDF. */
  async function finishedAttempt(email: string): Promise<number> {
    const sent = await t.run([
      "invite",
      "send",
      "--test",
      "1003",
      "--email",
      email,
      "--name",
      "Pdf Reader",
      "--json",
    ]);
    const id = sent.json<{ testInvitationId: number }>().testInvitationId;
    await t.sandbox.completeAttempt(id, "Complete");
    return id;
  }

  const cliEnv = (extra: Record<string, string> = {}) => ({
    PATH: process.env.PATH ?? "",
    NO_COLOR: "1",
    ...t.env,
    ...extra,
  });

  /** Runs the built CLI in `cwd` with stdout on the given descriptor (a file); resolves with its exit and stderr. */
  function runToFd(
    args: string[],
    cwd: string,
    fd: number,
  ): Promise<{ code: number | null; stderr: string }> {
    return new Promise((resolve, reject) => {
      const child = spawn(process.execPath, [BIN, ...args], {
        cwd,
        env: cliEnv(),
        stdio: ["ignore", fd, "pipe"],
      });
      let stderr = "";
      child.stderr?.on("data", (chunk: Buffer) => {
        stderr += chunk.toString();
      });
      child.on("error", reject);
      child.on("close", (code) => resolve({ code, stderr }));
    });
  }

  it("`reports pdf <id> > r.pdf`: the PDF is in r.pdf, nothing is written to the working folder", async () => {
    const id = await finishedAttempt("pdf.redirect@example.com");
    const cwd = mkdtempSync(join(dir, "cwd-"));
    const target = join(dir, `r-${id}.pdf`);
    const fd = openSync(target, "w");
    let run: { code: number | null; stderr: string };
    try {
      run = await runToFd(["reports", "pdf", String(id)], cwd, fd);
    } finally {
      closeSync(fd);
    }
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    const pdf = readFileSync(target);
    expect(pdf.subarray(0, 5).toString("latin1")).toBe("%PDF-");
    expect(pdf.subarray(-6).toString("latin1")).toBe("%%EOF\n");
    expect(readdirSync(cwd)).toEqual([]);
  });

  it("on a terminal it still saves report-<id>.pdf (and writes no PDF bytes to the screen)", async () => {
    const id = await finishedAttempt("pdf.terminal@example.com");
    const cwd = mkdtempSync(join(dir, "cwd-tty-"));
    const pty = spawnPty(process.execPath, [BIN, "reports", "pdf", String(id)], {
      name: "xterm-256color",
      cols: 120,
      rows: 30,
      cwd,
      env: cliEnv({ TERM: "xterm-256color" }),
    });
    let screen = "";
    pty.onData((data) => {
      screen += data;
    });
    const code = await new Promise<number>((resolve) => pty.onExit(({ exitCode }) => resolve(exitCode)));
    expect(code).toBe(0);
    expect(screen).toContain(`report-${id}.pdf`);
    expect(screen).not.toContain("%PDF");
    expect(
      readFileSync(join(cwd, `report-${id}.pdf`))
        .subarray(0, 5)
        .toString("latin1"),
    ).toBe("%PDF-");
  });

  it("--json without --out still saves the file and describes it on stdout", async () => {
    const id = await finishedAttempt("pdf.json@example.com");
    const cwd = mkdtempSync(join(dir, "cwd-json-"));
    const out = join(dir, `json-${id}.out`);
    const fd = openSync(out, "w");
    try {
      expect((await runToFd(["reports", "pdf", String(id), "--json"], cwd, fd)).code).toBe(0);
    } finally {
      closeSync(fd);
    }
    expect(JSON.parse(readFileSync(out, "utf8"))).toMatchObject({
      testInvitationId: id,
      file: `report-${id}.pdf`,
    });
    expect(existsSync(join(cwd, `report-${id}.pdf`))).toBe(true);
  });

  /**
   * The built CLI with stdout on a pipe whose read side this process closes once `after` bytes came; resolves
   * with its exit code (null if it was still running `limitMs` later: it hung, and was killed) and stderr.
   */
  function runClosingPipe(
    args: string[],
    env: Record<string, string>,
    after: number,
    limitMs: number,
  ): Promise<{ code: number | null; stderr: string; received: Buffer; hung: boolean }> {
    return new Promise((resolve, reject) => {
      const child = spawn(process.execPath, [BIN, ...args], {
        cwd: mkdtempSync(join(dir, "cwd-pipe-")),
        env: cliEnv(env),
        stdio: ["ignore", "pipe", "pipe"],
      });
      const chunks: Buffer[] = [];
      let got = 0;
      let stderr = "";
      let hung = false;
      const timer = setTimeout(() => {
        hung = true;
        child.kill("SIGKILL");
      }, limitMs);
      child.stdout.on("data", (chunk: Buffer) => {
        chunks.push(chunk);
        got += chunk.length;
        if (got >= after) child.stdout.destroy();
      });
      child.stderr.on("data", (chunk: Buffer) => {
        stderr += chunk.toString();
      });
      child.on("error", reject);
      child.on("close", (code) => {
        clearTimeout(timer);
        resolve({ code, stderr, received: Buffer.concat(chunks), hung });
      });
    });
  }

  const expectQuiet = (stderr: string) => {
    expect(stderr).not.toMatch(/EPIPE|Unhandled|^\s+at |error:/m);
  };

  it("a pipe closed after the first bytes of the sandbox's PDF: the command ends, exit 0, no stack trace", async () => {
    const id = await finishedAttempt("pdf.pipe@example.com");
    const run = await runClosingPipe(["reports", "pdf", String(id)], {}, 1, 15_000);
    expect(run.hung).toBe(false);
    expect(run.code).toBe(0);
    expect(run.received.subarray(0, 5).toString("latin1")).toBe("%PDF-");
    expectQuiet(run.stderr);
  });

  describe("a PDF far larger than a pipe holds, its reader gone after the first bytes", () => {
    let server: Server;
    let url: string;
    /** Each PDF answer the server gave: the bytes it wrote, and whether it got to its end. */
    const served: Array<{ bytes: number; finished: boolean }> = [];
    const PIECES = 256; // of 64 KiB: 16 MiB after the sandbox's PDF
    beforeAll(async () => {
      // In front of the sandbox: its PDF, then 16 MiB more of PDF comment lines, a piece at a time.
      server = createServer((req, res) => {
        const answer = { bytes: 0, finished: false };
        served.push(answer);
        res.on("finish", () => {
          answer.finished = true;
        });
        const write = (bytes: Buffer) => {
          answer.bytes += bytes.length;
          return res.write(bytes);
        };
        void (async () => {
          const upstream = await fetch(`${t.sandbox.url}${req.url?.replace(/^\/api/, "") ?? ""}`, {
            headers: { "x-api-key": SANDBOX_KEYS.acme },
          });
          const head = Buffer.from(await upstream.arrayBuffer());
          res.writeHead(upstream.status, { "content-type": upstream.headers.get("content-type") ?? "" });
          write(head);
          const filler = Buffer.from(`%${"x".repeat(1022)}\n`.repeat(64));
          for (let i = 0; i < PIECES && !res.destroyed; i++) {
            if (!write(filler)) await new Promise((r) => res.once("drain", r).once("close", r));
            await sleep(2);
          }
          res.end();
        })().catch(() => res.destroy());
      });
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      const address = server.address() as { port: number };
      url = `http://127.0.0.1:${address.port}/api`;
    });
    afterAll(async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    });

    it.each([
      ["without --out", []],
      ["--out -", ["--out", "-"]],
    ])("%s: the download stops, the command ends: exit 0, no stack trace", async (_, out) => {
      const id = await finishedAttempt("pdf.large@example.com");
      const run = await runClosingPipe(
        ["reports", "pdf", String(id), ...out, "--timeout", "60000"],
        { ASSESS_BASE_URL: url },
        4096,
        20_000,
      );
      expect(run.hung).toBe(false);
      expect(run.code).toBe(0);
      expect(run.received.subarray(0, 5).toString("latin1")).toBe("%PDF-");
      expectQuiet(run.stderr);
      // The CLI hung up: the server never got to the end of its 16 MiB.
      const answer = served.at(-1)!;
      expect(answer.finished).toBe(false);
      expect(answer.bytes).toBeLessThan(PIECES * 65_536);
    });

    it("in-process: a stdout destroyed mid-PDF, its 'close' long past, ends the command (no wait for 'drain')", async () => {
      const id = await finishedAttempt("pdf.destroyed@example.com");
      let got = 0;
      // A reader that takes the first piece and goes away without acknowledging it: 'drain' never comes.
      const stdout = new Writable({
        highWaterMark: 1024,
        write(chunk: Buffer, _encoding, _callback) {
          got += chunk.length;
          setTimeout(() => this.destroy(), 5);
        },
      });
      const stderr = new PassThrough();
      let errText = "";
      stderr.on("data", (chunk: Buffer) => {
        errText += chunk.toString();
      });
      const io = {
        stdout,
        stderr,
        stdin: Readable.from([]),
        env: { ...cliEnv({ ASSESS_BASE_URL: url }) },
      } as unknown as Io;
      const ran = main(["reports", "pdf", String(id), "--out", "-", "--timeout", "60000"], io, {});
      const limit = new Promise<"hung">((resolve) => setTimeout(() => resolve("hung"), 10_000).unref());
      expect(await Promise.race([ran, limit])).toBe(0);
      expect(got).toBeGreaterThan(0);
      expectQuiet(errText);
      expect(served.at(-1)!.finished).toBe(false);
    });
  });
});
