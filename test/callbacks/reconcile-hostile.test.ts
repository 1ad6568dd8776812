/**
 * `assess callbacks reconcile` against a listing that is not what the sandbox usually answers, in-process (`main`;
 * the built CLI for a --log that could hang its open): ids no attempt can have (−5, 0, 1.5) are skipped with a
 * warning while the missing valid ones are still resent (exit 1), `7001` and `"7001"` are one attempt, attempts without a callback URL (bulk invitations) are
 * counted apart and end in exit 0, and a --log that is a FIFO or a folder is exit 2 before any call.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { expectNoStack, freePort, useWatchEnv } from "../attempts/watch-helpers.js";

const PROCESS_PATH = "/v3/callbacks/process";

const { t, tmp, run, runBuilt, finishedAttempt } = useWatchEnv("assess-reconcile-hostile-");
const processCalls = () => t.sandbox.requests.filter((r) => r.path === PROCESS_PATH);
const processedIds = () =>
  processCalls().flatMap((r) => (r.body as { testinvitationIds: number[] }).testinvitationIds);

/** The next listing answers these attempts (the service's shape), whatever was finished. */
function listingAnswers(attempts: Array<Record<string, unknown>>): void {
  t.sandbox.faults.add({
    method: "POST",
    path: "/v3/candidates/testattempts",
    kind: "status",
    status: 200,
    body: JSON.stringify({ result: { testAttempts: attempts }, errors: null }),
    times: 1,
  });
}

describe("callbacks reconcile against a hostile listing", () => {
  it('skips ids -5, 0, 1.5 and "007" with a warning, resends the valid missing ones once each (7001 and "7001" are one), exit 1', async () => {
    const since = new Date(Date.now() - 1000).toISOString();
    const lost = `http://127.0.0.1:${await freePort()}/hooks`;
    const a = await finishedAttempt("a@example.com", { callbackUrl: lost });
    const b = await finishedAttempt("b@example.com", { callbackUrl: lost });
    listingAnswers([
      { testInvitationId: -5, testId: 1001, email: "minus@example.com" },
      { testInvitationId: 0, testId: 1001, email: "zero@example.com" },
      { testInvitationId: 1.5, testId: 1001, email: "half@example.com" },
      // Not canonical: Number() would make it attempt 7, another candidate's.
      { testInvitationId: "007", testId: 1001, email: "padded@example.com" },
      { testInvitationId: a, testId: 1001, email: "a@example.com" },
      { testInvitationId: String(a), testId: 1001, email: "a@example.com" },
      { testInvitationId: b, testId: 1001, email: "b@example.com" },
    ]);
    const log = tmp.file("empty.ndjson");
    writeFileSync(log, "");
    const r = await run(["callbacks", "reconcile", "--from", since, "--log", log, "--json"]);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toContain(
      `The service listed 4 attempts whose testInvitationId is not a plain positive whole number (-5, 0, 1.5, "007"): skipped`,
    );
    expect(r.stderr).toContain("2 finished attempts in the period; 0 with a final notification");
    expect(processedIds()).toEqual([a, b].sort((x, y) => x - y));
    expect(JSON.parse(r.stdout)).toMatchObject({ attempts: 2, missing: [a, b], resent: 2, invalidIds: 4 });
    expectNoStack(r.stderr);
  });

  it("attempts without a callback URL (bulk invitations) are counted apart, said once, and the run exits 0", async () => {
    const since = new Date(Date.now() - 1000).toISOString();
    const lost = `http://127.0.0.1:${await freePort()}/hooks`;
    const withUrl = await finishedAttempt("with.url@example.com", { callbackUrl: lost });
    const bulk = [await finishedAttempt("bulk1@example.com"), await finishedAttempt("bulk2@example.com")];
    const log = tmp.file("empty.ndjson");
    writeFileSync(log, "");
    const r = await run(["callbacks", "reconcile", "--from", since, "--log", log, "--json"]);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({
      attempts: 3,
      missing: [withUrl, ...bulk].sort((x, y) => x - y),
      resent: 1,
      noCallbackUrl: bulk,
    });
    const said = r.stderr.split("\n").filter((line) => line.includes("no callback URL"));
    expect(said).toEqual([expect.stringContaining("2 of the missing attempts have no callback URL")]);
    expect(r.stderr).not.toMatch(/is a callback URL registered/);
    expectNoStack(r.stderr);
  });

  it("a --log that is a FIFO or a folder is exit 2 before any call (a FIFO hung, a folder was a bug)", async () => {
    const since = new Date(Date.now() - 1000).toISOString();
    const fifo = tmp.file("log.fifo");
    execFileSync("mkfifo", [fifo]);
    const folder = tmp.file("log-folder");
    mkdirSync(folder);
    const requests = t.sandbox.requests.length;
    for (const [log, what] of [
      [fifo, "a FIFO"],
      [folder, "a folder"],
    ] as const) {
      // A --log that could hang its open (a FIFO) is read by the built CLI, killed if it does.
      const r = await runBuilt(["callbacks", "reconcile", "--from", since, "--log", log], {
        timeoutMs: 20_000,
      });
      expect(r.signal, r.stderr).toBeNull();
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toContain(`--log ${log} is ${what}`);
      expect(r.stderr).not.toContain("bug");
    }
    expect(t.sandbox.requests.length).toBe(requests);
  });
});
