/**
 * `assess callbacks reconcile`, in-process (`main`). A real `callbacks listen --log` (the built CLI) receives the
 * notifications of some attempts; the others go to a callback URL where nothing listens, so the log misses
 * them. Reconcile resends exactly those (and a rerun nothing, the ledger); with a log that misses none it sends
 * nothing. Also `callbacks resend`, a bulk run, prints its JSON summary on stdout with --json and on exit 3.
 */
import { appendFileSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { expectNoStack, freePort, useWatchEnv, waitUntil } from "../attempts/watch-helpers.js";

const PROCESS_PATH = "/v3/callbacks/process";

// A sandbox and a folder for each test: the sandbox's attempts and callbacks, and the ledgers, must not leak into the next.
const { t, tmp, run, start, finishedAttempt } = useWatchEnv("assess-reconcile-");
const processCalls = () => t.sandbox.requests.filter((r) => r.path === PROCESS_PATH);
const processedIds = (from: number) =>
  processCalls()
    .slice(from)
    .flatMap((r) => (r.body as { testinvitationIds: number[] }).testinvitationIds);

interface Reconciled {
  attempts: number;
  received: number;
  missing: number[];
  resent: number;
  alreadyQueued: number;
  noCallbackUrl: number[];
  invalidIds: number;
}

describe("callbacks reconcile", () => {
  it("resends exactly the attempts whose final notification the log misses; a rerun and a complete log send nothing", async () => {
    const since = new Date(Date.now() - 1000).toISOString();
    const log = tmp.file("callbacks.ndjson");
    const listen = start(["callbacks", "listen", "--port", "0", "--log", log]);
    const lost = `http://127.0.0.1:${await freePort()}/hooks`;
    let heard: number[] = [];
    let missed: number[] = [];
    try {
      const [, url] = await listen.waitFor("stderr", /Callback URL to use: (\S+)/);
      for (let i = 0; i < 3; i++)
        heard.push(await finishedAttempt(`heard${i}@example.com`, { callbackUrl: url }));
      for (let i = 0; i < 2; i++)
        missed.push(await finishedAttempt(`missed${i}@example.com`, { callbackUrl: lost }));
      // Each heard attempt: its "In Progress" and its final notification.
      await waitUntil(
        () => listen.stdout().split("\n").filter(Boolean).length >= 6,
        "the notifications",
        20_000,
      );
    } finally {
      listen.child.kill("SIGINT");
      expect((await listen.exit).code).toBe(130);
    }
    heard = heard.sort((a, b) => a - b);
    missed = missed.sort((a, b) => a - b);

    // --dry-run lists (reads) and names them, and sends nothing.
    const dry = await run(["callbacks", "reconcile", "--from", since, "--log", log, "--dry-run"]);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stderr).toContain(
      `[dry-run] the attempts were listed (reads); would resend the notifications of 2: ${missed.join(", ")}. Nothing was sent.`,
    );
    expect(dry.stdout.split("\n").filter(Boolean).map(Number)).toEqual(missed);
    expect(processCalls()).toHaveLength(0);

    const r = await run(["callbacks", "reconcile", "--from", since, "--log", log, "--json"]);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({
      attempts: 5,
      received: 3,
      missing: missed,
      resent: 2,
      alreadyQueued: 0,
      noCallbackUrl: [],
      invalidIds: 0,
    } satisfies Reconciled);
    expect(processedIds(0)).toEqual(missed);
    expect(r.stderr).toContain("5 finished attempts in the period; 3 with a final notification in");
    expectNoStack(r.stderr);

    // The ledger: a rerun does not queue again what the first run got queued.
    const calls = processCalls().length;
    const rerun = await run(["callbacks", "reconcile", "--from", since, "--log", log, "--json"]);
    expect(rerun.code, rerun.stderr).toBe(0);
    expect(JSON.parse(rerun.stdout)).toMatchObject({ missing: missed, resent: 0, alreadyQueued: 2 });
    expect(processCalls()).toHaveLength(calls);

    // The missing two arrive later, written by another receiver in another casing: nothing is missing.
    for (const id of missed) {
      appendFileSync(log, `${JSON.stringify({ testinvitationid: String(id), STATUS: "Test Left" })}\n`);
    }
    const complete = await run(["callbacks", "reconcile", "--from", since, "--log", log, "--json"]);
    expect(complete.code, complete.stderr).toBe(0);
    expect(JSON.parse(complete.stdout)).toEqual({
      attempts: 5,
      received: 5,
      missing: [],
      resent: 0,
      alreadyQueued: 0,
      noCallbackUrl: [],
      invalidIds: 0,
    });
    expect(complete.stderr).toContain("Nothing to resend");
    expect(processCalls()).toHaveLength(calls);
    expect(readFileSync(log, "utf8")).toContain('"status":"In Progress"');
  });

  it("an In Progress notification alone is not a received result; a bad log is exit 2 before any call", async () => {
    const since = new Date(Date.now() - 1000).toISOString();
    const id = await finishedAttempt("progress@example.com");
    const log = tmp.file("progress.ndjson");
    appendFileSync(log, `${JSON.stringify({ TestInvitationId: id, Status: "In Progress" })}\n`);
    const r = await run(["callbacks", "reconcile", "--from", since, "--log", log, "--dry-run"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim()).toBe(String(id));

    const listings = t.sandbox.requests.length;
    appendFileSync(log, "not json\n{}\n");
    const bad = await run(["callbacks", "reconcile", "--from", since, "--log", log]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain(`--log ${log}:2: not a JSON line`);
    const none = await run(["callbacks", "reconcile", "--from", since, "--log", tmp.file("nope")]);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain("no such file");
    const missing = await run(["callbacks", "reconcile", "--from", since]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("Missing --log <listen.ndjson>");
    expect(t.sandbox.requests.length).toBe(listings);
  });

  it("--test of a test not found, or of another account, is refused as attempts list refuses it, before any listing", async () => {
    const log = tmp.file("empty.ndjson");
    appendFileSync(log, "");
    const errorLines = (stderr: string) => stderr.split("\n").filter((line) => /^(error|hint):/.test(line));
    for (const [test, code] of [
      ["999999", 1],
      ["2001", 4],
    ] as const) {
      const listed = await run(["attempts", "list", "--from", "7d", "--to", "now", "--test", test]);
      expect(listed.code).toBe(code);
      const mark = t.sandbox.requests.length;
      const r = await run(["callbacks", "reconcile", "--from", "7d", "--log", log, "--test", test]);
      expect(r.code, r.stderr).toBe(code);
      expect(errorLines(r.stderr)).toEqual(errorLines(listed.stderr));
      expect(errorLines(r.stderr)).toHaveLength(2);
      expect(r.stdout).toBe("");
      expect(t.sandbox.requests.slice(mark).map((q) => q.path)).toEqual([`/v3/tests/${test}`]);
    }
  });

  it("callbacks resend, a bulk run, prints its JSON summary on stdout with --json and whenever it exits 3 (CLI.md)", async () => {
    const id = await finishedAttempt("resend@example.com", { callbackUrl: "http://127.0.0.1:9/x" });
    const plain = await run(["callbacks", "resend", String(id), "999999999"]);
    expect(plain.code, plain.stderr).toBe(3);
    expect(plain.stderr).toContain("999999999");
    expect(JSON.parse(plain.stdout)).toMatchObject({ rows: 2, failed: 1, chunks: { total: 1 } });
    // A run that ends well prints none without --json.
    const again = await run(["callbacks", "resend", String(id)], { ASSESS_CONFIG_DIR: tmp.file("again") });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toBe("");
    const json = await run(["callbacks", "resend", String(id), "999999999", "--json"], {
      ASSESS_CONFIG_DIR: tmp.file("other"),
    });
    expect(json.code, json.stderr).toBe(3);
    expect(JSON.parse(json.stdout)).toMatchObject({ rows: 2, failed: 1 });
  });
});
