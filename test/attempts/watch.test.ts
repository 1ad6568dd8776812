/**
 * `assess attempts watch` against a sandbox over loopback HTTP: in-process (`main`), and through the built CLI (a
 * child process, as a user or cron runs it) where the process is the subject: Ctrl-C, a reader gone, peak memory,
 * a FIFO that would block the thread. Each test has a sandbox and a config folder of its own, so the attempts
 * one test finishes are never another's.
 */
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadWatchState } from "../../src/commands/attempts/watch-state.js";
import { ndjson, sleep } from "../helpers/cli.js";
import { expectNoStack, startReceiver, useWatchEnv, waitUntil } from "./watch-helpers.js";

const { t, tmp, env, run, start, runBuilt, finishedAttempt, listingCalls, watchFolder } =
  useWatchEnv("assess-watch-");

function stateFiles(): string[] {
  // The journal beside the state goes with it.
  return readdirSync(watchFolder())
    .filter((name) => !name.endsWith(".journal.ndjson"))
    .map((name) => join(watchFolder(), name));
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
      const [shown] = ndjson(watch.stdout());
      expect(shown).toMatchObject({ testInvitationId: id, testId: 1001, email: "watch.live@example.com" });
      // The sandbox answers in the real service's shape: testStatus "Completed", read as it comes.
      expect(shown!.testStatus).toBe("Completed");
      // The next poll overlaps this one (late records still show) and returns the attempt again: not shown twice.
      const calls = listingCalls();
      await waitUntil(() => listingCalls() > calls, "another poll");
      await sleep(200);
      expect(ndjson(watch.stdout())).toHaveLength(1);

      // A second watch of the same state (an overlapping cron run) is refused while this one runs.
      const twin = await run(["attempts", "watch", "--once"]);
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
      const state = loadWatchState(file!)!;
      expect(Object.keys(state.shown)).toEqual([String(id)]);
      expect(Date.parse(state.polledUntil)).toBeGreaterThan(Date.now() - 60_000);
    } finally {
      watch.child.kill("SIGKILL");
    }
  });

  it("a state file it did not write (cut short, or a pending delivery without its attempt) is refused, left as it is", async () => {
    const first = await run(["attempts", "watch", "--once"]);
    expect(first.code, first.stderr).toBe(0);
    const [file] = stateFiles();
    const good = JSON.parse(readFileSync(file!, "utf8")) as Record<string, unknown>;
    const since = new Date().toISOString();
    for (const text of [
      JSON.stringify(good).slice(0, 25),
      JSON.stringify({ ...good, pending: [{ since, tries: 1 }] }),
    ]) {
      writeFileSync(file!, text);
      const r = await run(["attempts", "watch", "--once"]);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(`error: The watch state ${file} is not one this version wrote`);
      expect(r.stderr).toContain("hint: Delete it to start again from --since");
      expect(r.stdout).toBe("");
      expect(readFileSync(file!, "utf8")).toBe(text);
      expectNoStack(r.stderr);
    }
  });

  it("a state file larger than any watch writes (sparse, 300 MiB), or a FIFO, is refused without being read", async () => {
    const first = await run(["attempts", "watch", "--once"]);
    expect(first.code, first.stderr).toBe(0);
    const [file] = stateFiles();
    truncateSync(file!, 300 * 1024 * 1024);
    const r = await runBuilt(["attempts", "watch", "--once"], { peakMemory: true });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`error: The watch state ${file} is not one this version wrote`);
    expect(r.peakMiB!).toBeLessThan(200);
    expect(statSync(file!).size).toBe(300 * 1024 * 1024);

    // A FIFO in its place would have the read wait for a writer forever.
    rmSync(file!);
    execFileSync("mkfifo", [file!]);
    const fifo = await runBuilt(["attempts", "watch", "--once"], { timeoutMs: 60_000 });
    expect(fifo.code, fifo.stderr).toBe(1);
    expect(fifo.stderr).toContain(`error: The watch state ${file} is not one this version wrote`);
  });

  it("--once twice across a restart: each attempt shown by exactly one run, and a run with nothing new prints nothing", async () => {
    const first = await finishedAttempt("once.a@example.com");
    const a = await run(["attempts", "watch", "--once"]);
    expect(a.code, a.stderr).toBe(0);
    expect(ndjson(a.stdout).map((l) => l.testInvitationId)).toEqual([first]);

    const { polledUntil } = loadWatchState(stateFiles()[0]!)!;

    // Finished between the runs: the restarted watch polls from where the first stopped (less ten minutes of
    // overlap), not from --since.
    const second = await finishedAttempt("once.b@example.com");
    const b = await run(["attempts", "watch", "--once", "--since", "5s"]);
    expect(b.code, b.stderr).toBe(0);
    expect(ndjson(b.stdout).map((l) => l.testInvitationId)).toEqual([second]);
    const listing = t.sandbox.requests.filter((r) => r.path.endsWith("/v3/candidates/testattempts")).at(-1);
    const overlap = new Date(Date.parse(polledUntil) - 10 * 60_000).toISOString().slice(0, 19);
    expect(listing?.body).toMatchObject({ StartDateTime: `${overlap}Z` });

    const c = await run(["attempts", "watch", "--once"]);
    expect(c.code, c.stderr).toBe(0);
    expect(c.stdout).toBe("");
    // -o honoured: TSV with the list's columns, here for another test filter (a state of its own).
    const other = await finishedAttempt("once.c@example.com", { test: "1002" });
    const tsv = await run(["attempts", "watch", "--once", "--test", "1002", "-o", "tsv"]);
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

    const next = await run(args);
    expect(next.code, next.stderr).toBe(0);
    // At most the first write can have been taken for delivered before the pipe's error came back.
    expect(ndjson(next.stdout).length).toBeGreaterThanOrEqual(3);
  });

  it("--exec runs the command with the attempt as JSON on stdin, without the API key; a failing command keeps the attempt pending until it succeeds", async () => {
    const one = await finishedAttempt("exec.one@example.com");
    const two = await finishedAttempt("exec.two@example.com");
    const file = tmp.file("received.ndjson");
    const ok = tmp.file("ok");
    const exec =
      `if [ -n "$ASSESS_API_KEY" ]; then k=given; else k=none; fi; echo "ran for $ASSESS_TEST_INVITATION_ID, key: $k"; ` +
      `[ -f '${ok}' ] || exit 3; cat >> '${file}'`;
    const r = await run(["attempts", "watch", "--once", "--exec", exec]);
    // Not delivered: cron sees a failure, and stderr names what is pending.
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toContain(`--exec of attempt ${one} failed (exited with 3); pending`);
    expect(r.stderr).toContain(`--exec of attempt ${two} failed (exited with 3); pending`);
    expect(r.stderr).toContain(
      `2 deliveries are still pending (--exec): attempt ${one} (exited with 3, 1 try), attempt ${two} (exited with 3, 1 try); the next run tries again.`,
    );
    // The command's own output goes to stderr: stdout is the attempts alone, shown once.
    expect(r.stderr).toContain(`ran for ${one}, key: none`);
    expect(r.stderr).not.toContain(t.env.ASSESS_API_KEY);
    expect(ndjson(r.stdout).map((a) => a.testInvitationId)).toEqual([one, two]);

    // The command works now: the next run delivers both, in order, and shows nothing again.
    writeFileSync(ok, "");
    const next = await run(["attempts", "watch", "--once", "--exec", exec]);
    expect(next.code, next.stderr).toBe(0);
    expect(next.stdout).toBe("");
    expect(next.stderr).toContain("2 deliveries left by earlier runs (--exec): trying them first.");
    const received = ndjson(readFileSync(file, "utf8"));
    expect(received.map((a) => a.testInvitationId)).toEqual([one, two]);
    expect(received[0]).toMatchObject({ email: "exec.one@example.com", testId: 1001 });
    // Delivered: a third run runs nothing again.
    const again = await run(["attempts", "watch", "--once", "--exec", exec]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).not.toContain("ran for");
    expect(ndjson(readFileSync(file, "utf8"))).toHaveLength(2);

    // --exec-env-key passes the key on, for a command that calls assess itself.
    const three = await finishedAttempt("exec.three@example.com");
    const keyed = await run(["attempts", "watch", "--once", "--exec-env-key", "--exec", exec]);
    expect(keyed.code, keyed.stderr).toBe(0);
    expect(keyed.stderr).toContain(`ran for ${three}, key: given`);
  });

  it("--forward POSTs each attempt as JSON to a local server, tries again after a 503, never sends the API key", async () => {
    const receiver = await startReceiver((_request, res, index) => {
      // The first delivery fails: the forward is tried again.
      if (index > 0) return 204;
      res.writeHead(503, { "retry-after": "1" }).end();
      return undefined;
    });
    try {
      const id = await finishedAttempt("forward@example.com");
      const r = await run(["attempts", "watch", "--once", "--forward", receiver.url]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toContain(
        `--forward to ${receiver.url} of attempt ${id}: HTTP 503; trying again in 1s`,
      );
      expect(receiver.requests).toHaveLength(2);
      const delivered = receiver.requests[1]!;
      expect(JSON.parse(delivered.body.toString())).toMatchObject({
        testInvitationId: id,
        email: "forward@example.com",
      });
      expect(delivered.headers["content-type"]).toBe("application/json");
      expect(delivered.headers["x-api-key"]).toBeUndefined();
      expect(delivered.body.toString()).not.toContain(t.env.ASSESS_API_KEY);
      // No signing secret, no signature.
      expect(delivered.headers["webhook-signature"]).toBeUndefined();
      // Delivered: a rerun forwards nothing again.
      const again = await run(["attempts", "watch", "--once", "--forward", receiver.url]);
      expect(again.code, again.stderr).toBe(0);
      expect(receiver.requests).toHaveLength(2);
    } finally {
      await receiver.close();
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
      await watch.waitFor("stdout", new RegExp(`\r\n${id},`));
      // A later poll's attempt is a row of the same CSV: no second header.
      const later = await finishedAttempt("limited.later@example.com");
      await watch.waitFor("stdout", new RegExp(`\r\n${later},`));
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
      watch.child.kill("SIGINT");
      // Not the 120 s the service asked for: a watch that slept on would outlast the test's 60 s timeout.
      expect((await watch.exit).code).toBe(130);
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
    const r = await run(["attempts", "watch", "--once", "--retries", "0"]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr).toContain("error:");
    expectNoStack(r.stderr);
    expect(stateFiles()).toEqual([]);
    // The attempt is still there for the next run.
    const again = await run(["attempts", "watch", "--once"]);
    expect(ndjson(again.stdout)).toHaveLength(1);
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
    expect(again.stderr).toMatch(/No attempts of any test finished since \d{4}-/);
  });

  it("--dry-run says what --exec would do, runs nothing, and records nothing", async () => {
    const id = await finishedAttempt("dry@example.com");
    const file = tmp.file("dry.ndjson");
    const dry = await run(["attempts", "watch", "--once", "--dry-run", "--exec", `cat >> '${file}'`]);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stderr).toContain(`[dry-run] would deliver attempt ${id} (--exec)`);
    expect(ndjson(dry.stdout).map((l) => l.testInvitationId)).toEqual([id]);
    expect(() => readFileSync(file)).toThrow();
    expect(stateFiles()).toEqual([]);
    // The real run does it.
    const real = await run(["attempts", "watch", "--once", "--exec", `cat >> '${file}'`]);
    expect(real.code, real.stderr).toBe(0);
    expect(ndjson(readFileSync(file, "utf8")).map((l) => l.testInvitationId)).toEqual([id]);
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
