/**
 * Issue 17, part 1: `assess attempts watch` through the built CLI (a child process, as a user or cron runs it)
 * against a sandbox over loopback HTTP. Each test has a sandbox and a config folder of its own, so the attempts
 * one test finishes are never another's.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startTestEnv, type TestEnv } from "../helpers/cli.js";

const ROOT = join(import.meta.dirname, "..", "..");
const BIN = join(ROOT, "bin", "assess.js");

let t: TestEnv;
let dir: string;
let env: Record<string, string>;
beforeEach(async () => {
  t = await startTestEnv();
  dir = mkdtempSync(join(tmpdir(), "assess-watch-"));
  env = { ...t.env, ASSESS_CONFIG_DIR: join(dir, "config") };
});
afterEach(async () => {
  await t.close();
  rmSync(dir, { recursive: true, force: true });
});

interface Live {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Resolves once `pattern` shows on the stream; fails if the process ends first or after `boundMs`. */
  waitFor(stream: "stdout" | "stderr", pattern: RegExp, boundMs?: number): Promise<RegExpExecArray>;
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** The built CLI with stdout and stderr on pipes (so stdout is not a terminal: NDJSON by default). */
function start(args: string[], extraEnv: Record<string, string> = {}): Live {
  const child = spawn(process.execPath, [BIN, ...args], {
    stdio: ["ignore", "pipe", "pipe"],
    env: { PATH: process.env.PATH, NO_COLOR: "1", ...env, ...extraEnv },
  });
  let stdout = "";
  let stderr = "";
  child.stdout!.on("data", (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr!.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  let ended = false;
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on("close", (code, signal) => {
      ended = true;
      resolve({ code, signal });
    }),
  );
  const texts = { stdout: () => stdout, stderr: () => stderr };
  return {
    child,
    stdout: texts.stdout,
    stderr: texts.stderr,
    exit,
    async waitFor(stream, pattern, boundMs = 20_000) {
      const until = Date.now() + boundMs;
      for (;;) {
        const match = pattern.exec(texts[stream]());
        if (match) return match;
        if (ended) throw new Error(`the command ended before ${pattern} showed:\n${stderr}`);
        if (Date.now() > until) throw new Error(`timed out waiting for ${pattern} on ${stream}:\n${stderr}`);
        await sleep(20);
      }
    },
  };
}

/** Runs the built CLI to its end. */
async function runBuilt(args: string[], extraEnv: Record<string, string> = {}) {
  const live = start(args, extraEnv);
  const { code } = await live.exit;
  return { code, stdout: live.stdout(), stderr: live.stderr() };
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Invites a candidate to a test and makes them finish it, as a user would: `assess sandbox complete`. */
async function finishedAttempt(email: string, test = "1001"): Promise<number> {
  const invited = await t.run([
    ...["invite", "send", "--test", test, "--email", email, "--name", "Watch Ed"],
    ...["-o", "tsv", "--fields", "testInvitationId"],
  ]);
  expect(invited.code, invited.stderr).toBe(0);
  const id = invited.stdout.trim().split("\n").at(-1)!;
  const completed = await t.run(["sandbox", "complete", id]);
  expect(completed.code, completed.stderr).toBe(0);
  return Number(id);
}

function lines(text: string): Array<Record<string, unknown>> {
  return text
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

function listingCalls(): number {
  return t.sandbox.requests.filter((r) => r.path.endsWith("/v3/candidates/testattempts")).length;
}

function stateFiles(): string[] {
  const folder = join(env.ASSESS_CONFIG_DIR!, "watch");
  return readdirSync(folder).map((name) => join(folder, name));
}

function expectNoStack(stderr: string): void {
  expect(stderr).not.toMatch(/^\s+at |Unhandled|TypeError|ReferenceError/m);
}

describe("assess attempts watch", () => {
  it("a running watch shows an attempt finished after it started, once; Ctrl-C exits 130 with the state saved", async () => {
    const watch = start(["attempts", "watch", "--interval", "5s"]);
    try {
      await watch.waitFor("stderr", /Watching finished attempts of all tests every 5s/);
      // The first poll found nothing: nothing finished in the last hour of a fresh sandbox.
      await waitUntil(() => listingCalls() >= 1, "the first poll");
      expect(watch.stdout()).toBe("");
      const id = await finishedAttempt("watch.live@example.com");
      await watch.waitFor("stdout", /\n/);
      const [shown] = lines(watch.stdout());
      expect(shown).toMatchObject({ testInvitationId: id, testId: 1001, email: "watch.live@example.com" });
      // The sandbox answers in the real service's shape: testStatus "Completed", read as it comes.
      expect(shown!.testStatus).toBe("Completed");
      // The next poll overlaps this one (late records still show) and returns the attempt again: not shown twice.
      const calls = listingCalls();
      await waitUntil(() => listingCalls() > calls, "another poll", 15_000);
      await sleep(200);
      expect(lines(watch.stdout())).toHaveLength(1);

      // A second watch of the same state (an overlapping cron run) is refused while this one runs.
      const twin = await runBuilt(["attempts", "watch", "--once"]);
      expect(twin.code).toBe(2);
      expect(twin.stderr).toContain(
        `Another \`assess attempts watch\` of the same tests is running (process ${watch.child.pid})`,
      );

      watch.child.kill("SIGINT");
      const { code } = await watch.exit;
      expect(code).toBe(130);
      expect(watch.stderr()).toMatch(/Stopped after \d+ polls: 1 attempt shown; state kept in /);
      expectNoStack(watch.stderr());
      // The lock went with the watch: only the state is left.
      const [file, ...others] = stateFiles();
      expect(others).toEqual([]);
      expect(statSync(file!).mode & 0o777).toBe(0o600);
      const state = JSON.parse(readFileSync(file!, "utf8"));
      expect(Object.keys(state.shown)).toEqual([String(id)]);
      expect(Date.parse(state.polledUntil)).toBeGreaterThan(Date.now() - 60_000);
    } finally {
      watch.child.kill("SIGKILL");
    }
  });

  it("--once twice across a restart: each attempt shown by exactly one run, and a run with nothing new prints nothing", async () => {
    const first = await finishedAttempt("once.a@example.com");
    const a = await runBuilt(["attempts", "watch", "--once"]);
    expect(a.code, a.stderr).toBe(0);
    expect(lines(a.stdout).map((l) => l.testInvitationId)).toEqual([first]);

    const { polledUntil } = JSON.parse(readFileSync(stateFiles()[0]!, "utf8")) as { polledUntil: string };

    // Finished between the runs: the restarted watch polls from where the first stopped (less ten minutes of
    // overlap), not from --since.
    const second = await finishedAttempt("once.b@example.com");
    const b = await runBuilt(["attempts", "watch", "--once", "--since", "5s"]);
    expect(b.code, b.stderr).toBe(0);
    expect(lines(b.stdout).map((l) => l.testInvitationId)).toEqual([second]);
    const listing = t.sandbox.requests.filter((r) => r.path.endsWith("/v3/candidates/testattempts")).at(-1);
    const overlap = new Date(Date.parse(polledUntil) - 10 * 60_000).toISOString().slice(0, 19);
    expect(listing?.body).toMatchObject({ StartDateTime: `${overlap}Z` });

    const c = await runBuilt(["attempts", "watch", "--once"]);
    expect(c.code, c.stderr).toBe(0);
    expect(c.stdout).toBe("");
    // -o honoured: TSV with the list's columns, here for another test filter (a state of its own).
    const other = await finishedAttempt("once.c@example.com", "1002");
    const tsv = await runBuilt(["attempts", "watch", "--once", "--test", "1002", "-o", "tsv"]);
    expect(tsv.code, tsv.stderr).toBe(0);
    expect(tsv.stdout.split("\n")[0]).toMatch(/^INVITATION\tTEST\tNAME\tEMAIL\tSTATUS/);
    expect(tsv.stdout.split("\n").slice(1).filter(Boolean)).toEqual([
      expect.stringMatching(new RegExp(`^${other}\\t1002\\t`)),
    ]);
    expect(stateFiles()).toHaveLength(2);
  });

  it("a reader gone before the output: what no one read is shown by the next run, not recorded as shown", async () => {
    for (const email of ["gone1@example.com", "gone2@example.com", "gone3@example.com", "gone4@example.com"])
      await finishedAttempt(email);
    const args = ["attempts", "watch", "--once", "--since", "1h", "--test", "1001"];
    const gone = start(args);
    gone.child.stdout!.destroy();
    const first = await gone.exit;
    expect(first.code, gone.stderr()).toBe(0);
    expect(gone.stderr()).not.toMatch(/EPIPE|Unhandled|^\s+at /m);

    const next = await runBuilt(args);
    expect(next.code, next.stderr).toBe(0);
    // At most the first write can have been taken for delivered before the pipe's error came back.
    expect(lines(next.stdout).length).toBeGreaterThanOrEqual(3);
  });

  it("--exec runs the command with the attempt as JSON on stdin; a failing command is reported and the watch goes on", async () => {
    const one = await finishedAttempt("exec.one@example.com");
    const two = await finishedAttempt("exec.two@example.com");
    const file = join(dir, "received.ndjson");
    const exec = `cat >> '${file}'; echo "ran for $ASSESS_TEST_INVITATION_ID"; exit 3`;
    const r = await runBuilt(["attempts", "watch", "--once", "--exec", exec]);
    expect(r.code, r.stderr).toBe(0);
    const received = lines(readFileSync(file, "utf8"));
    expect(received.map((a) => a.testInvitationId)).toEqual([one, two]);
    expect(received[0]).toMatchObject({ email: "exec.one@example.com", testId: 1001 });
    expect(r.stderr).toContain(`--exec exited with 3 for attempt ${one}`);
    expect(r.stderr).toContain(`--exec exited with 3 for attempt ${two}`);
    // The command's own output goes to stderr: stdout is the attempts alone.
    expect(r.stderr).toContain(`ran for ${one}`);
    expect(lines(r.stdout).map((a) => a.testInvitationId)).toEqual([one, two]);
    // Failed or not, they were shown: the next run runs nothing again.
    const again = await runBuilt(["attempts", "watch", "--once", "--exec", exec]);
    expect(again.code, again.stderr).toBe(0);
    expect(lines(readFileSync(file, "utf8"))).toHaveLength(2);
  });

  it("--forward POSTs each attempt as JSON to a local server, tries again after a 503, never sends the API key", async () => {
    const received: Array<{ body: string; headers: http.IncomingHttpHeaders }> = [];
    let answers = 0;
    const server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        // The first delivery fails: the forward is tried again.
        if (answers++ === 0) {
          res.writeHead(503, { "retry-after": "1" }).end();
          return;
        }
        received.push({ body: Buffer.concat(chunks).toString("utf8"), headers: req.headers });
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks/assess`;
    try {
      const id = await finishedAttempt("forward@example.com");
      const r = await runBuilt(["attempts", "watch", "--once", "--forward", url]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toContain(`--forward of attempt ${id}: HTTP 503; trying again in 1s`);
      expect(received).toHaveLength(1);
      expect(JSON.parse(received[0]!.body)).toMatchObject({
        testInvitationId: id,
        email: "forward@example.com",
      });
      expect(received[0]!.headers["content-type"]).toBe("application/json");
      expect(received[0]!.headers["x-api-key"]).toBeUndefined();
      expect(received[0]!.body).not.toContain(t.env.ASSESS_API_KEY);
      // Delivered: a rerun forwards nothing again.
      const again = await runBuilt(["attempts", "watch", "--once", "--forward", url]);
      expect(again.code, again.stderr).toBe(0);
      expect(received).toHaveLength(1);
    } finally {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    }
  });

  it("a 429 from the listing backs off, says so on stderr, and the next polls show what finished (CSV: one header)", async () => {
    const id = await finishedAttempt("limited@example.com");
    t.sandbox.faults.add({
      method: "POST",
      path: "/v3/candidates/testattempts",
      kind: "status",
      status: 429,
      body: JSON.stringify({ statusCode: 429, message: "Too many requests" }),
      headers: { "retry-after": "1" },
      times: 1,
    });
    // No retries inside the client: the watch's own backoff takes the 429.
    const watch = start(["attempts", "watch", "--interval", "5s", "--retries", "0", "-o", "csv"]);
    try {
      // Twice the interval (the Retry-After of 1 s is shorter).
      await watch.waitFor("stderr", /Rate limited; next poll in 10s/);
      expect(watch.stdout()).toBe("");
      await watch.waitFor("stdout", new RegExp(`\r\n${id},`), 20_000);
      // A later poll's attempt is a row of the same CSV: no second header.
      const later = await finishedAttempt("limited.later@example.com");
      await watch.waitFor("stdout", new RegExp(`\r\n${later},`), 20_000);
      const rows = watch.stdout().split("\r\n").filter(Boolean);
      expect(rows[0]).toMatch(/^INVITATION,TEST,NAME,EMAIL,STATUS/);
      expect(rows.slice(1).map((row) => Number(row.split(",")[0]))).toEqual([id, later]);
      watch.child.kill("SIGINT");
      expect((await watch.exit).code).toBe(130);
      expectNoStack(watch.stderr());
    } finally {
      watch.child.kill("SIGKILL");
    }
  });

  it("a Retry-After longer than the backoff is waited out; Ctrl-C during the wait exits 130 at once", async () => {
    t.sandbox.faults.add({
      method: "POST",
      path: "/v3/candidates/testattempts",
      kind: "status",
      status: 429,
      headers: { "retry-after": "120" },
      times: 1,
    });
    const watch = start(["attempts", "watch", "--interval", "5s", "--retries", "0"]);
    try {
      await watch.waitFor("stderr", /Rate limited; next poll in 2m\n/);
      const interrupted = Date.now();
      watch.child.kill("SIGINT");
      expect((await watch.exit).code).toBe(130);
      expect(Date.now() - interrupted).toBeLessThan(5_000);
      expect(watch.stderr()).toContain("Stopped after 0 polls: 0 attempts shown");
      expectNoStack(watch.stderr());
    } finally {
      watch.child.kill("SIGKILL");
    }
  });

  it("--once exits 1 on a 429 it cannot wait out (cron runs it again), with nothing shown and no state written", async () => {
    await finishedAttempt("limited.once@example.com");
    t.sandbox.faults.add({
      method: "POST",
      path: "/v3/candidates/testattempts",
      kind: "status",
      status: 429,
      times: 1,
    });
    const r = await runBuilt(["attempts", "watch", "--once", "--retries", "0"]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr).toContain("error:");
    expectNoStack(r.stderr);
    expect(stateFiles()).toEqual([]);
    // The attempt is still there for the next run.
    const again = await runBuilt(["attempts", "watch", "--once"]);
    expect(lines(again.stdout)).toHaveLength(1);
  });

  it("on a terminal each poll's new attempts are a table with the list's columns", async () => {
    const id = await finishedAttempt("table@example.com");
    const r = await t.run(["attempts", "watch", "--once"], { env, tty: true });
    expect(r.code, r.stderr).toBe(0);
    const rows = r.stdout.split("\n").filter((line) => line.startsWith("│"));
    expect(rows).toHaveLength(2);
    expect(rows[0]).toMatch(/INVITATION.*TEST.*NAME.*EMAIL.*STATUS/);
    expect(rows[1]).toMatch(new RegExp(`${id}.*1001.*Watch Ed.*table@example\\.com.*Completed`));
    // Nothing new: a person is told so on stderr, stdout stays empty.
    const again = await t.run(["attempts", "watch", "--once"], { env, tty: true });
    expect(again.stdout).toBe("");
    expect(again.stderr).toMatch(/No attempts of all tests finished since \d{4}-/);
  });

  it("--dry-run says what --exec would do, runs nothing, and records nothing", async () => {
    const id = await finishedAttempt("dry@example.com");
    const file = join(dir, "dry.ndjson");
    const dry = await runBuilt(["attempts", "watch", "--once", "--dry-run", "--exec", `cat >> '${file}'`]);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stderr).toContain(`[dry-run] would run --exec for attempt ${id}`);
    expect(lines(dry.stdout).map((l) => l.testInvitationId)).toEqual([id]);
    expect(() => readFileSync(file)).toThrow();
    expect(stateFiles()).toEqual([]);
    // The real run does it.
    const real = await runBuilt(["attempts", "watch", "--once", "--exec", `cat >> '${file}'`]);
    expect(real.code, real.stderr).toBe(0);
    expect(lines(readFileSync(file, "utf8")).map((l) => l.testInvitationId)).toEqual([id]);
  });

  it("refuses bad values before polling: exit 2", async () => {
    for (const [args, message] of [
      [["--interval", "1s"], "--interval must be at least 5s"],
      [["--interval", "soon"], '--interval: "soon" is not a duration'],
      [["--since", "0s"], "--since must be at least 1s"],
      [
        ["--exec", "cat", "--forward", "http://127.0.0.1:1/x"],
        "--exec and --forward cannot be used together",
      ],
      [["--forward", "ftp://example.com/x"], "--forward must be an http:// or https:// URL"],
      [["--test", "abc"], "--test must be a positive whole number"],
      [["--test", ""], "--test: give at least one test id"],
    ] as const) {
      const r = await t.run(["attempts", "watch", "--once", ...args], { env });
      expect(r.code, `${args.join(" ")}: ${r.stderr}`).toBe(2);
      expect(r.stderr).toContain(message);
    }
    expect(listingCalls()).toBe(0);
  });
});

async function waitUntil(check: () => boolean, what: string, boundMs = 10_000): Promise<void> {
  const until = Date.now() + boundMs;
  while (!check()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}
