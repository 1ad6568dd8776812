import { appendFileSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { BulkResult } from "../../src/bulk/engine/summary.js";
import { useTempDir, useTestEnv } from "../helpers/cli.js";
import { bulkRequests, candidatesCsv, expectEachOnce, invitedCounts, writeCandidates } from "./helpers.js";

const env = useTestEnv({ clearFaults: true });
const tmp = useTempDir();

const BULK = "/v3/tests/*/invite/bulk";

describe("invite bulk: chunks, ledger, reruns", () => {
  it("sends 25,000 rows as 25 requests of ≤1000, each e-mail once; a rerun sends nothing; 10 new rows send exactly those", async () => {
    const file = tmp.file("big.csv");
    writeCandidates(file, 25_000);
    const before = env.sandbox.requests.length;
    const first = await env.run(["invite", "bulk", file, "--test", "1001", "--json"]);
    expect(first.stderr).toContain("25,000 sent");
    expect(first.code).toBe(0);
    const summary = first.json<BulkResult>();
    expect(summary).toMatchObject({
      rows: 25_000,
      valid: 25_000,
      invalid: 0,
      duplicates: 0,
      alreadyDone: 0,
      sent: 25_000,
      uncertain: 0,
      chunks: { total: 25, succeeded: 25, failed: 0, uncertain: 0 },
    });
    const requests = bulkRequests(env.sandbox, before);
    expect(requests).toHaveLength(25);
    for (const r of requests) {
      expect((r.body as { candidates: unknown[] }).candidates.length).toBeLessThanOrEqual(1000);
      expect(Object.keys(r.body as object).sort()).toEqual(["candidates"]);
    }
    expect(expectEachOnce(invitedCounts(env.sandbox, before), 25_000)).toEqual([]);

    const mark = env.sandbox.requests.length;
    const again = await env.run(["invite", "bulk", file, "--test", "1001", "--json"]);
    expect(again.code).toBe(0);
    expect(again.json<BulkResult>()).toMatchObject({
      rows: 25_000,
      alreadyDone: 25_000,
      sent: 0,
      chunks: { total: 0 },
    });
    expect(bulkRequests(env.sandbox, mark)).toHaveLength(0);

    appendFileSync(file, candidatesCsv(10, 25_000).replace(/^email,name\n/, ""));
    const mark2 = env.sandbox.requests.length;
    const more = await env.run(["invite", "bulk", file, "--test", "1001", "--json"]);
    expect(more.code).toBe(0);
    expect(more.json<BulkResult>()).toMatchObject({ rows: 25_010, alreadyDone: 25_000, sent: 10 });
    const extra = bulkRequests(env.sandbox, mark2);
    expect(extra).toHaveLength(1);
    const emails = (extra[0]!.body as { candidates: Array<{ email: string }> }).candidates.map(
      (c) => c.email,
    );
    expect(emails).toEqual(Array.from({ length: 10 }, (_, i) => `cand${25_000 + i}@example.com`));
  });

  it("skips confirmed e-mails even when the file changed order and case", async () => {
    const file = tmp.file("reorder.csv");
    writeFileSync(file, "email,name\nReorder1@Example.com,One\nreorder2@example.com,Two\n");
    expect((await env.run(["invite", "bulk", file, "--test", "1002"])).code).toBe(0);
    writeFileSync(
      file,
      "Name,E-Mail Address\nTwo,REORDER2@example.com\nThree,reorder3@example.com\nOne,reorder1@example.com\n",
    );
    const mark = env.sandbox.requests.length;
    const run = await env.run(["invite", "bulk", file, "--test", "1002", "--json"]);
    expect(run.json<BulkResult>()).toMatchObject({ alreadyDone: 2, sent: 1 });
    const sent = bulkRequests(env.sandbox, mark);
    expect(sent.map((r) => r.body)).toEqual([
      { candidates: [{ email: "reorder3@example.com", name: "Three" }] },
    ]);
  });

  it("--chunk-size lowers the chunk, never raises it; options go in §2.7 field names", async () => {
    const file = tmp.file("chunks.csv");
    writeFileSync(file, candidatesCsv(250, 90_000));
    const tooBig = await env.run(["invite", "bulk", file, "--test", "1003", "--chunk-size", "1001"]);
    expect(tooBig.code).toBe(2);
    expect(tooBig.stderr).toMatch(/--chunk-size must be a whole number from 1 to 1000/);
    const mark = env.sandbox.requests.length;
    const run = await env.run([
      "invite",
      "bulk",
      file,
      "--test",
      "1003",
      "--chunk-size",
      "100",
      "--concurrency",
      "3",
      "--start",
      "2030-01-01",
      "--end",
      "2030-01-31",
      "--timezone",
      "1720",
      "--proctoring",
      "image",
    ]);
    expect(run.code).toBe(0);
    const requests = bulkRequests(env.sandbox, mark);
    expect(
      requests.map((r) => (r.body as { candidates: unknown[] }).candidates.length).sort((a, b) => a - b),
    ).toEqual([50, 100, 100]);
    expect(requests[0]!.body).toMatchObject({
      startDateTime: "2030-01-01T00:00:00Z",
      endDateTime: "2030-01-31T23:59:59Z",
      timezoneId: 1720,
      proctoringMode: "image",
    });
  });

  it("routes rows by a testid column, one chunk per test, and refuses --test beside it", async () => {
    const file = tmp.file("routed.csv");
    const rows = ["Test ID,email,full_name"];
    for (let i = 0; i < 30; i++) rows.push(`${i % 3 === 0 ? 1004 : 1005},routed${i}@example.com,Routed ${i}`);
    rows.push("1005,routed0@example.com,Same person other test");
    writeFileSync(file, `${rows.join("\n")}\n`);
    const clash = await env.run(["invite", "bulk", file, "--test", "1004"]);
    expect(clash.code).toBe(2);
    expect(clash.stderr).toMatch(/--test cannot be combined/);
    const mark = env.sandbox.requests.length;
    const run = await env.run(["invite", "bulk", file, "--json", "--chunk-size", "8"]);
    expect(run.code).toBe(0);
    expect(run.json<BulkResult>()).toMatchObject({ rows: 31, duplicates: 0, sent: 31 });
    const requests = bulkRequests(env.sandbox, mark);
    const per = new Map<string, string[]>();
    for (const r of requests) {
      const emails = (r.body as { candidates: Array<{ email: string }> }).candidates.map((c) => c.email);
      expect(emails.length).toBeLessThanOrEqual(8);
      per.set(r.path, [...(per.get(r.path) ?? []), ...emails]);
    }
    expect(per.get("/v3/tests/1004/invite/bulk")).toHaveLength(10);
    expect(per.get("/v3/tests/1005/invite/bulk")).toHaveLength(21);
    expect(readdirSync(join(env.configDir, "ledgers")).filter((f) => f.endsWith(".ndjson"))).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^invite-test1004-/),
        expect.stringMatching(/^invite-test1005-/),
      ]),
    );
  });

  it("reports a duplicate e-mail and sends it once", async () => {
    const file = tmp.file("dups.csv");
    writeFileSync(
      file,
      "email,name\ndup@example.com,First\nother@example.com,Other\nDUP@example.com,Second\n",
    );
    const mark = env.sandbox.requests.length;
    const run = await env.run(["invite", "bulk", file, "--test", "1001", "--json"]);
    expect(run.code).toBe(0);
    const summary = run.json<BulkResult>();
    expect(summary).toMatchObject({ rows: 3, duplicates: 1, sent: 2 });
    expect(summary.duplicateRows).toEqual([expect.objectContaining({ line: 4, label: "DUP@example.com" })]);
    expect(run.stderr).toMatch(/dups\.csv:4\s+DUP@example\.com/);
    expect(bulkRequests(env.sandbox, mark)).toHaveLength(1);
  });

  it("--email-column / --name-column pick the columns; --restart sends everything again", async () => {
    const file = tmp.file("columns.csv");
    writeFileSync(
      file,
      "Work Mail,Private Mail,Display\nw1@example.com,p1@example.com,One\nw2@example.com,p2@example.com,Two\n",
    );
    const ambiguous = await env.run(["invite", "bulk", file, "--test", "1004"]);
    expect(ambiguous.code).toBe(2);
    expect(ambiguous.stderr).toMatch(/columns\.csv:1: the header has no e-mail column .* and no name column/);
    const mark = env.sandbox.requests.length;
    const run = await env.run([
      "invite",
      "bulk",
      file,
      "--test",
      "1004",
      "--email-column",
      "private_mail",
      "--name-column",
      "DISPLAY",
    ]);
    expect(run.code).toBe(0);
    expect(bulkRequests(env.sandbox, mark)[0]!.body).toEqual({
      candidates: [
        { email: "p1@example.com", name: "One" },
        { email: "p2@example.com", name: "Two" },
      ],
    });
    const missing = await env.run(["invite", "bulk", file, "--test", "1004", "--email-column", "nope"]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/no column named "nope" \(--email-column\)/);
    const mark2 = env.sandbox.requests.length;
    const again = await env.run([
      "invite",
      "bulk",
      file,
      "--test",
      "1004",
      "--email-column",
      "private_mail",
      "--name-column",
      "DISPLAY",
      "--restart",
      "--json",
    ]);
    expect(again.json<BulkResult>()).toMatchObject({ alreadyDone: 0, sent: 2 });
    expect(bulkRequests(env.sandbox, mark2)).toHaveLength(1);
  });

  it("--dry-run prints the chunks, sends nothing and writes no ledger", async () => {
    const file = tmp.file("dry.csv");
    writeFileSync(file, candidatesCsv(5, 70_000));
    const mark = env.sandbox.requests.length;
    const run = await env.run(["invite", "bulk", file, "--test", "1001", "--dry-run", "--chunk-size", "2"]);
    expect(run.code).toBe(0);
    expect(bulkRequests(env.sandbox, mark)).toHaveLength(0);
    expect(run.stderr).toMatch(/would send 5 candidates in 3 requests/);
    expect(run.stdout.match(/"dryRun": true/g)).toHaveLength(3);
    expect(run.stdout).toContain("cand70004@example.com");
    expect(run.stdout).not.toContain("sbx-acme");
    const real = await env.run(["invite", "bulk", file, "--test", "1001", "--json"]);
    expect(real.json<BulkResult>()).toMatchObject({ sent: 5, alreadyDone: 0 });
  });

  it("--skip-invalid sends the valid rows and writes a rejects file that can be fixed and fed back", async () => {
    const file = tmp.file("mixed.csv");
    writeFileSync(
      file,
      'email;name;note\r\nok1@example.com;One;x\r\nnot-an-email;Two;"a;b"\r\nok3@example.com;;z\r\nok4@example.com;Four;w\r\n',
    );
    const strict = await env.run(["invite", "bulk", file, "--test", "1002"]);
    expect(strict.code).toBe(2);
    expect(strict.stderr).toMatch(/mixed\.csv:3: email: "not-an-email" is not a valid e-mail address/);
    expect(strict.stderr).toMatch(/mixed\.csv:4: name: empty/);

    const mark = env.sandbox.requests.length;
    const run = await env.run(["invite", "bulk", file, "--test", "1002", "--skip-invalid", "--json"]);
    expect(run.code).toBe(0);
    expect(run.json<BulkResult>()).toMatchObject({ rows: 4, valid: 2, invalid: 2, sent: 2 });
    const rejects = tmp.file("mixed.rejects.csv");
    const text = readFileSync(rejects, "utf8");
    expect(text.split("\r\n")[0]).toBe("email;name;note;error");
    expect(text).toContain(
      'not-an-email;Two;"a;b";"line 3: email: ""not-an-email"" is not a valid e-mail address"',
    );
    expect(bulkRequests(env.sandbox, mark)).toHaveLength(1);

    // Fix the rejects and feed them back in: the error column is ignored.
    writeFileSync(
      rejects,
      text
        .replace("not-an-email", "fixed2@example.com")
        .replace("ok3@example.com;;", "ok3@example.com;Three;"),
    );
    const mark2 = env.sandbox.requests.length;
    const fixed = await env.run(["invite", "bulk", rejects, "--test", "1002", "--json"]);
    expect(fixed.code).toBe(0);
    expect(fixed.json<BulkResult>()).toMatchObject({ rows: 2, sent: 2 });
    expect((bulkRequests(env.sandbox, mark2)[0]!.body as { candidates: unknown[] }).candidates).toEqual([
      { email: "fixed2@example.com", name: "Two" },
      { email: "ok3@example.com", name: "Three" },
    ]);
  });
});

describe("invite bulk: faults", () => {
  it("a lost answer → exit 3 listing the uncertain rows; a plain rerun does not resend them; --retry-uncertain does", async () => {
    const file = tmp.file("lost.csv");
    writeCandidates(file, 3000, 100_000);
    env.sandbox.faults.add({ method: "POST", path: BULK, kind: "lost-after", skip: 1 });
    const mark = env.sandbox.requests.length;
    const run = await env.run(["invite", "bulk", file, "--test", "1003", "--concurrency", "1"]);
    expect(run.code).toBe(3);
    // The JSON summary comes on stdout whenever the exit code is 3.
    const summary = run.json<BulkResult>();
    // `sent` does not count the rows of unknown outcome ("sent":3000,"uncertain":1000 counted them twice).
    expect(summary).toMatchObject({
      rows: 3000,
      sent: 2000,
      uncertain: 1000,
      chunks: { total: 3, succeeded: 2, uncertain: 1 },
    });
    expect(summary.uncertainRows).toHaveLength(1000);
    expect(summary.uncertainRows[0]).toMatchObject({ line: 1002, label: "cand101000@example.com" });
    expect(run.stderr).toMatch(/1,000 rows have an unknown outcome/);
    // What can be done about them, since no operation lists invitations; and only what applies: none was refused.
    const said = run.stderr.replace(/\s+/g, " ");
    expect(said).toContain("ask these candidates whether the invitation e-mail came");
    expect(said).toContain("a candidate whose invitation did arrive then gets a second e-mail");
    expect(said).not.toContain("check them in the service");
    expect(said).toContain(
      "Finished with problems (exit 3): the 1,000 rows of unknown outcome are not sent again unless --retry-uncertain (see above).",
    );
    expect(said).not.toMatch(/resend|refused/);
    expect(run.stderr).toMatch(/lost\.csv:1002\s+cand101000@example\.com/);
    expect(expectEachOnce(invitedCounts(env.sandbox, mark), 3000, 100_000)).toEqual([]);

    const mark2 = env.sandbox.requests.length;
    const rerun = await env.run(["invite", "bulk", file, "--test", "1003"]);
    expect(rerun.code).toBe(3);
    expect(bulkRequests(env.sandbox, mark2)).toHaveLength(0);
    const again = rerun.json<BulkResult>();
    expect(again).toMatchObject({ alreadyDone: 2000, uncertain: 1000, sent: 0 });
    expect(again.uncertainRows[0]).toMatchObject({ line: 1002 });

    const mark3 = env.sandbox.requests.length;
    const retried = await env.run(["invite", "bulk", file, "--test", "1003", "--retry-uncertain", "--json"]);
    expect(retried.code).toBe(0);
    expect(retried.json<BulkResult>()).toMatchObject({ alreadyDone: 2000, uncertain: 0, sent: 1000 });
    expect(bulkRequests(env.sandbox, mark3)).toHaveLength(1);
    const finalRun = await env.run(["invite", "bulk", file, "--test", "1003", "--json"]);
    expect(finalRun.code).toBe(0);
    expect(finalRun.json<BulkResult>()).toMatchObject({ alreadyDone: 3000, uncertain: 0 });
  });

  it("a reset before processing is uncertain too (the client cannot tell); 500 as well", async () => {
    const file = tmp.file("reset.csv");
    writeCandidates(file, 2500, 200_000);
    env.sandbox.faults.add({ method: "POST", path: BULK, kind: "reset-before", skip: 0 });
    env.sandbox.faults.add({ method: "POST", path: BULK, kind: "status", status: 500 });
    const run = await env.run(["invite", "bulk", file, "--test", "1004", "--concurrency", "1"]);
    expect(run.code).toBe(3);
    expect(run.json<BulkResult>()).toMatchObject({
      sent: 500,
      uncertain: 2000,
      chunks: { succeeded: 1, uncertain: 2 },
    });
  });

  it("429 with Retry-After and 503 are retried; every e-mail arrives once", async () => {
    const file = tmp.file("retry.csv");
    writeCandidates(file, 2500, 300_000);
    env.sandbox.faults.add({
      method: "POST",
      path: BULK,
      kind: "status",
      status: 429,
      headers: { "retry-after": "1" },
    });
    env.sandbox.faults.add({ method: "POST", path: BULK, kind: "status", status: 503, skip: 1 });
    const mark = env.sandbox.requests.length;
    const run = await env.run(["invite", "bulk", file, "--test", "1005", "--json"]);
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(/HTTP 429 .* retrying in 1\.0 s/);
    expect(run.json<BulkResult>()).toMatchObject({ sent: 2500, chunks: { total: 3, succeeded: 3 } });
    expect(bulkRequests(env.sandbox, mark)).toHaveLength(5);
    expect(expectEachOnce(invitedCounts(env.sandbox, mark), 2500, 300_000)).toEqual([]);
  });

  it("a `false` answer fails the chunk: its rows are refused, written to the rejects file, resent by a rerun", async () => {
    const file = tmp.file("false.csv");
    writeCandidates(file, 30, 400_000);
    env.sandbox.faults.add({
      method: "POST",
      path: BULK,
      kind: "status",
      status: 200,
      body: "false",
      skip: 1,
    });
    const run = await env.run([
      "invite",
      "bulk",
      file,
      "--test",
      "1001",
      "--chunk-size",
      "10",
      "--concurrency",
      "1",
    ]);
    expect(run.code).toBe(3);
    const summary = run.json<BulkResult>();
    expect(summary).toMatchObject({ sent: 30, failed: 10, chunks: { total: 3, succeeded: 2, failed: 1 } });
    expect(summary.failures[0]).toMatchObject({
      line: 12,
      label: "cand400010@example.com",
      error: expect.stringMatching(/false/),
    });
    const rejects = readFileSync(tmp.file("false.rejects.csv"), "utf8").trim().split("\r\n");
    expect(rejects).toHaveLength(11);
    const mark = env.sandbox.requests.length;
    const rerun = await env.run(["invite", "bulk", file, "--test", "1001", "--json"]);
    expect(rerun.code).toBe(0);
    expect(rerun.json<BulkResult>()).toMatchObject({ alreadyDone: 20, sent: 10 });
    expect(bulkRequests(env.sandbox, mark)).toHaveLength(1);
  });

  it("a 400 for one chunk fails that chunk only; results keep input order under concurrency", async () => {
    const file = tmp.file("order.csv");
    writeCandidates(file, 50, 500_000);
    // The first request is slow, so later ones finish first.
    env.sandbox.faults.add({ method: "POST", path: BULK, kind: "latency", delayMs: 300 });
    env.sandbox.faults.add({
      method: "POST",
      path: BULK,
      kind: "status",
      status: 400,
      body: '{"errors":["Nope"]}',
      skip: 3,
    });
    const run = await env.run([
      "invite",
      "bulk",
      file,
      "--test",
      "1002",
      "--chunk-size",
      "5",
      "--concurrency",
      "4",
    ]);
    expect(run.code).toBe(3);
    const summary = run.json<BulkResult>();
    expect(summary.chunks).toEqual({ total: 10, succeeded: 9, failed: 1, uncertain: 0 });
    expect(summary.failures.map((f) => f.line)).toEqual(
      [...summary.failures.map((f) => f.line)].sort((a, b) => a - b),
    );
    expect(summary.failures[0]!.error).toMatch(/HTTP 400: Nope/);
  });

  it("an authentication failure stops the run with exit 4", async () => {
    const file = tmp.file("auth.csv");
    writeCandidates(file, 20, 600_000);
    const run = await env.run(["invite", "bulk", file, "--test", "1001"], {
      env: { ASSESS_API_KEY: "sbx-wrong-key" },
    });
    expect(run.code).toBe(4);
    expect(run.stderr).toMatch(/error:/);
  });

  it("a 403 on a chunk stops the run with exit 4; what it did is on stderr, claiming no other exit code", async () => {
    const file = tmp.file("forbidden.csv");
    writeCandidates(file, 20, 650_000);
    env.sandbox.faults.add({
      method: "POST",
      path: BULK,
      kind: "status",
      status: 403,
      body: '{"statusCode":403,"message":"You do not have permission to access resource"}',
      skip: 1,
    });
    const run = await env.run([
      "invite",
      "bulk",
      file,
      "--test",
      "1001",
      "--chunk-size",
      "5",
      "--concurrency",
      "1",
      "--lookback",
      "0",
    ]);
    expect(run.code).toBe(4);
    expect(run.stderr).toMatch(/rows were refused by the service/);
    expect(run.stderr).toMatch(/error: You do not have permission to access resource/);
    expect(run.stderr).not.toMatch(/\(exit 3\)/);
    // The JSON summary that exit 3 prints unasked: not for an exit 4.
    expect(run.stdout).toBe("");
  });

  it("Ctrl-C lets the request in flight finish, records it, exits 130; the rerun completes each e-mail once", async () => {
    const file = tmp.file("ctrlc.csv");
    writeCandidates(file, 5000, 700_000);
    env.sandbox.faults.add({
      method: "POST",
      path: BULK,
      kind: "latency",
      delayMs: 150,
      times: Number.POSITIVE_INFINITY,
    });
    const controller = new AbortController();
    const mark = env.sandbox.requests.length;
    const poll = setInterval(() => {
      if (bulkRequests(env.sandbox, mark).length >= 2) controller.abort();
    }, 5);
    const run = await env.run(["invite", "bulk", file, "--test", "1003", "--concurrency", "1", "--json"], {
      signal: controller.signal,
    });
    clearInterval(poll);
    expect(run.code).toBe(130);
    const summary = run.json<BulkResult>();
    expect(summary.interrupted).toBe(true);
    expect(summary.uncertain).toBe(0);
    expect(summary.sent).toBeGreaterThanOrEqual(2000);
    expect(summary.sent).toBeLessThan(5000);
    env.sandbox.faults.clear();
    const rerun = await env.run(["invite", "bulk", file, "--test", "1003", "--json"]);
    expect(rerun.code).toBe(0);
    expect(rerun.json<BulkResult>()).toMatchObject({ alreadyDone: summary.sent, sent: 5000 - summary.sent });
    expect(expectEachOnce(invitedCounts(env.sandbox, mark), 5000, 700_000)).toEqual([]);
  });
});
