/**
 * The candidate pipeline's first half, in-process (main) on the sandbox: the invitation book records what was
 * sent (a CSV through `invite bulk`, the SDK, single invites, reattempts); `invite status` counts who finished
 * (the attempt listing), is pending or expired; `invite remind` re-invites, e-mail sent, exactly those who have
 * not finished, with the new window end, once.
 */
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { InvitationBook } from "../../src/core/invitation-book.js";
import { createClient } from "../../src/sdk/index.js";
import { SANDBOX_KEYS, useTempDir, useTestEnv } from "../helpers/cli.js";
import { writes } from "../plan/env.js";

const t = useTestEnv();
const tmp = useTempDir("assess-chase-");
let seen = 0;
const b = {
  get sandbox() {
    return t.sandbox;
  },
  run: (args: string[]) => t.run(args),
  /** The requests the sandbox got since the last call. */
  sent() {
    const fresh = t.sandbox.requests.slice(seen);
    seen = t.sandbox.requests.length;
    return fresh;
  },
};
const TEST = "1003";
const EMAILS = ["one", "two", "three", "four", "five"].map((n) => `${n}@chase.example`);

interface Status {
  tests: Array<{ testId: number; invited: number; finished: number; pending: number; expired: number }>;
  candidates: Array<{
    email: string;
    state: string;
    testInvitationId?: number;
    end?: string;
    lastReminderAt?: string;
  }>;
}

const invitationOf = (email: string, test = TEST) =>
  b.sandbox.state.invitations.findLast((i) => i.email.toLowerCase() === email && i.testId === Number(test))!;

async function status(test = TEST): Promise<Status> {
  const r = await b.run(["invite", "status", "--test", test, "--json"]);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as Status;
}

const stateOf = (s: Status) => Object.fromEntries(s.candidates.map((c) => [c.email, c.state]));

beforeAll(async () => {
  const file = join(tmp.dir, "round.csv");
  writeFileSync(
    file,
    `email,name\n${EMAILS.map((e, i) => `${i === 0 ? e.toUpperCase() : e},Candidate ${i}`).join("\n")}\n`,
  );
  const r = await b.run(["invite", "bulk", file, "--test", TEST, "--end", "+3d", "--json"]);
  expect(r.code, r.stderr).toBe(0);
  await b.sandbox.completeAttempt(invitationOf(EMAILS[0]!).testInvitationId, "Complete");
  await b.sandbox.completeAttempt(invitationOf(EMAILS[1]!).testInvitationId, "TestLeft");
  b.sent();
});

describe("invite status and invite remind", () => {
  it("five invited from a CSV, two finished: 2 finished, 3 pending; remind re-invites the 3 once, then nothing", async () => {
    const before = await status();
    expect(before.tests).toEqual([
      { testId: 1003, invited: 5, finished: 2, started: 0, pending: 3, expired: 0 },
    ]);
    // The e-mail as the matchers key it: ONE@ is one@.
    expect(stateOf(before)).toEqual({
      [EMAILS[0]!]: "finished",
      [EMAILS[1]!]: "finished",
      [EMAILS[2]!]: "pending",
      [EMAILS[3]!]: "pending",
      [EMAILS[4]!]: "pending",
    });
    const table = await b.run(["invite", "status", "--test", TEST]);
    expect(table.stdout).toBe("TEST\tINVITED\tFINISHED\tPENDING\tEXPIRED\n1003\t5\t2\t3\t0\n");
    // -o ndjson: one row a line, as every list streams (a test each, or a candidate each).
    const ndjson = async (...more: string[]) => {
      const r = await b.run(["invite", "status", "--test", TEST, "-o", "ndjson", ...more]);
      expect(r.code, r.stderr).toBe(0);
      return r.stdout
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line) as Record<string, unknown>);
    };
    expect(await ndjson()).toEqual([before.tests[0]]);
    expect(await ndjson("--candidates")).toEqual(before.candidates);
    expect(writes(b.sent())).toEqual([]);

    // Without --yes and no terminal: the plan, exit 2, nothing sent.
    const refused = await b.run(["invite", "remind", "--test", TEST, "--older-than", "0s", "--end", "+10d"]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("Plan for test 1003: 3 to remind (3 pending, 0 expired), 2 finished");
    expect(refused.stderr).toContain("Pass --yes");
    expect(writes(b.sent())).toEqual([]);

    const planned = await b.run([
      "invite",
      "remind",
      "--test",
      TEST,
      "--older-than",
      "0s",
      "--end",
      "+10d",
      "--plan",
      "--json",
    ]);
    expect(planned.code).toBe(0);
    const plan = JSON.parse(planned.stdout) as { remind: Array<{ email: string; newEnd: string }> };
    expect(plan.remind.map((r) => r.email).sort()).toEqual(EMAILS.slice(2).sort());
    const newEnd = plan.remind[0]!.newEnd;
    expect(Date.parse(newEnd) - Date.now()).toBeGreaterThan(9 * 86_400_000);
    expect(writes(b.sent())).toEqual([]);

    const ran = await b.run([
      "invite",
      "remind",
      "--test",
      TEST,
      "--older-than",
      "0s",
      "--end",
      newEnd,
      "--yes",
      "--json",
    ]);
    expect(ran.code, ran.stderr).toBe(0);
    expect(JSON.parse(ran.stdout).result).toMatchObject({ sent: 3, alreadyDone: 0 });
    const sent = writes(b.sent());
    expect(sent.map((r) => r.path)).toEqual(Array(3).fill(`/v3/tests/${TEST}/invite`));
    expect(sent.map((r) => (r.body as { emailId: string }).emailId).sort()).toEqual(EMAILS.slice(2).sort());
    for (const r of sent) expect(r.body).toMatchObject({ sendEmail: "yes", endDateTime: newEnd });
    // The service reset each invitation to the new window.
    for (const email of EMAILS.slice(2)) expect(invitationOf(email).endDateTime).toBe(newEnd);

    const after = await status();
    const reminded = after.candidates.filter((c) => c.lastReminderAt !== undefined);
    expect(reminded.map((c) => c.email).sort()).toEqual(EMAILS.slice(2).sort());
    for (const c of reminded) expect(c).toMatchObject({ state: "pending", end: newEnd });

    // A rerun within --older-than sends nothing.
    const again = await b.run(["invite", "remind", "--test", TEST, "--older-than", "1h", "--yes"]);
    expect(again.code).toBe(0);
    expect(again.stderr).toContain("0 to remind");
    expect(again.stderr).toContain("3 sent within 1h");
    expect(writes(b.sent())).toEqual([]);

    // The two who finished get a new attempt (invited in bulk, the book knew no id of theirs): pending again.
    const file = join(tmp.dir, "round.csv");
    const reattempt = await b.run([
      "invite",
      "bulk",
      file,
      "--test",
      TEST,
      "--reattempt-finished",
      "--end",
      "+3d",
    ]);
    expect(reattempt.code, reattempt.stderr).toBe(0);
    expect(writes(b.sent()).map((r) => r.path)).toHaveLength(2);
    const renewed = await status();
    expect(renewed.tests[0]).toMatchObject({ invited: 5, finished: 0, pending: 5 });
    for (const email of EMAILS.slice(0, 2))
      expect(renewed.candidates.find((c) => c.email === email)?.testInvitationId).toBe(
        invitationOf(email).testInvitationId,
      );
  });

  it("a candidate whose window passed shows expired and is reminded", async () => {
    // The CLI refuses an end in the past; the SDK sends what it is given, and books it as the CLI does.
    const client = createClient({
      apiKey: SANDBOX_KEYS.acme,
      baseUrl: t.sandbox.url,
      env: { ASSESS_CONFIG_DIR: t.configDir },
    });
    const email = "late@chase.example";
    const day = 86_400_000;
    const utc = (ms: number) => new Date(ms).toISOString().replace(/\.\d+Z$/, "Z");
    const answer = await client.invitations.create(1004, {
      emailId: email,
      fullName: "Late Comer",
      startDateTime: utc(Date.now() - 5 * day),
      endDateTime: utc(Date.now() - day),
    });
    const s = await status("1004");
    // The SDK reads the same book, as the CLI's --json shows it.
    expect(await client.invitations.status({ tests: [1004] })).toEqual(s);
    await client.close();
    expect(s.tests).toEqual([{ testId: 1004, invited: 1, finished: 0, started: 0, pending: 0, expired: 1 }]);
    expect(s.candidates).toEqual([
      expect.objectContaining({ email, state: "expired", testInvitationId: answer.testInvitationId }),
    ]);
    b.sent();

    const ran = await b.run(["invite", "remind", "--test", "1004", "--older-than", "0s", "--yes", "--json"]);
    expect(ran.code, ran.stderr).toBe(0);
    const out = JSON.parse(ran.stdout);
    expect(out.counts).toMatchObject({ remind: 1, expired: 1, pending: 0 });
    // --extend (default 5d) from now, the window having passed.
    const { newEnd } = out.remind[0];
    expect(Date.parse(newEnd) - Date.now()).toBeGreaterThan(4.9 * day);
    expect(Date.parse(newEnd) - Date.now()).toBeLessThan(5.1 * day);
    const sent = writes(b.sent());
    expect(sent).toHaveLength(1);
    expect(sent[0]!.path).toBe("/v3/tests/1004/invite");
    expect(sent[0]!.body).toMatchObject({ emailId: email, sendEmail: "yes", endDateTime: newEnd });
    expect(invitationOf(email, "1004")).toMatchObject({ status: "Pending", endDateTime: newEnd });
    expect((await status("1004")).candidates[0]).toMatchObject({ state: "pending", end: newEnd });
  });

  it("books what every sending surface sent, whatever the answer's shape", async () => {
    const send = (email: string) =>
      b.run(["invite", "send", "--test", "1005", "--email", email, "--name", "N", "--json"]);
    expect((await send("single@book.example")).code).toBe(0);
    const link = await b.run([
      "invite",
      "link",
      "--test",
      "1001",
      "--link",
      "3001",
      "--email",
      "link@book.example",
      "--name",
      "L",
    ]);
    expect(link.code, link.stderr).toBe(0);
    // A reattempt names only the attempt: its candidate is found in the book by the attempt's id.
    const first = invitationOf("single@book.example", "1005");
    await b.sandbox.completeAttempt(first.testInvitationId, "Complete");
    const again = await b.run(["invite", "reattempt", String(first.testInvitationId), "--end", "+2d"]);
    expect(again.code, again.stderr).toBe(0);
    // 200 without an id, and 201 with the id as text and fields nobody documented: booked all the same.
    t.sandbox.faults.add({
      method: "POST",
      path: "/v3/tests/1005/invite",
      kind: "status",
      status: 200,
      body: '{"result":"ok"}',
    });
    expect((await send("no-id@book.example")).code).toBe(0);
    t.sandbox.faults.add({
      method: "POST",
      path: "/v3/tests/1005/invite",
      kind: "status",
      status: 201,
      body: '{"testInvitationId":"987654","testUrl":"https://x.example/t","extra":{"a":1}}',
    });
    expect((await send("text-id@book.example")).code).toBe(0);

    const s = await status("1005");
    const by = Object.fromEntries(s.candidates.map((c) => [c.email, c]));
    const reattempted = invitationOf("single@book.example", "1005");
    expect(reattempted.testInvitationId).not.toBe(first.testInvitationId);
    // The new attempt is pending: the finished one was the attempt before it.
    expect(by["single@book.example"]).toMatchObject({
      state: "pending",
      testInvitationId: reattempted.testInvitationId,
    });
    expect(by["no-id@book.example"]).toMatchObject({ state: "pending" });
    expect(by["no-id@book.example"]!.testInvitationId).toBeUndefined();
    expect(by["text-id@book.example"]).toMatchObject({ state: "pending", testInvitationId: 987654 });
    expect((await status("1001")).candidates).toEqual([
      expect.objectContaining({ email: "link@book.example", state: "pending" }),
    ]);
  });

  it("the SDK's status reads the book and never writes it; the CLI's forgets who is past the retention", async () => {
    const book = InvitationBook.at({
      env: { ASSESS_CONFIG_DIR: t.configDir },
      profile: "default",
      service: t.sandbox.url,
    });
    const long = Date.now() - 200 * 86_400_000;
    book.record(
      [{ how: "bulk", testId: 1006, email: "gone@book.example", end: new Date(long).toISOString() }],
      new Date(long),
    );
    const text = readFileSync(book.path, "utf8");
    const client = createClient({
      apiKey: SANDBOX_KEYS.acme,
      baseUrl: t.sandbox.url,
      env: { ASSESS_CONFIG_DIR: t.configDir },
    });
    try {
      expect((await client.invitations.status({ tests: [1006] })).candidates).toEqual([]);
    } finally {
      await client.close();
    }
    expect(readFileSync(book.path, "utf8")).toBe(text);
    expect((await status("1006")).candidates).toEqual([]);
    expect(readFileSync(book.path, "utf8")).not.toContain("gone@book.example");
  });

  it("--log adds who started: In Progress notifications, by invitation id, or by e-mail for a bulk invitation", async () => {
    const one = await b.run([
      "invite",
      "send",
      "--test",
      "1002",
      "--email",
      "begun@log.example",
      "--name",
      "B",
      "--json",
    ]);
    const { testInvitationId } = JSON.parse(one.stdout) as { testInvitationId: number };
    const csv = join(tmp.dir, "log.csv");
    writeFileSync(csv, "email,name\nbulk.begun@log.example,C\nidle@log.example,D\n");
    expect((await b.run(["invite", "bulk", csv, "--test", "1002"])).code).toBe(0);
    const log = join(tmp.dir, "callbacks.ndjson");
    const at = new Date().toISOString();
    const line = (notification: object, answered = 200) =>
      JSON.stringify({ receivedAt: at, answered, notification });
    writeFileSync(
      log,
      [
        line({
          TestInvitationId: testInvitationId,
          CandidateEmailId: "begun@log.example",
          Status: "In Progress",
        }),
        line({ TestInvitationId: 99, CandidateEmailId: "BULK.begun@log.example", Status: "In Progress" }),
        // Refused by the listener, and a final notification: neither says started.
        line({ TestInvitationId: 98, CandidateEmailId: "idle@log.example", Status: "In Progress" }, 404),
        '{"receivedAt":"cut short',
      ].join("\n"),
    );
    const r = await b.run(["invite", "status", "--test", "1002", "--log", log, "--json"]);
    expect(r.code, r.stderr).toBe(0);
    const s = JSON.parse(r.stdout) as Status;
    expect(s.tests).toEqual([{ testId: 1002, invited: 3, finished: 0, started: 2, pending: 1, expired: 0 }]);
    expect(stateOf(s)).toEqual({
      "begun@log.example": "started",
      "bulk.begun@log.example": "started",
      "idle@log.example": "pending",
    });
    const table = await b.run(["invite", "status", "--test", "1002", "--log", log]);
    expect(table.stdout).toBe("TEST\tINVITED\tFINISHED\tSTARTED\tPENDING\tEXPIRED\n1002\t3\t0\t2\t1\t0\n");
    const missing = await b.run(["invite", "status", "--log", join(tmp.dir, "nope.ndjson")]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("no such file");
    // A folder given for the file is a usage error that says so, not "a bug in assess" (exit 1).
    const folder = await b.run(["invite", "status", "--log", tmp.dir]);
    expect(folder.code, folder.stderr).toBe(2);
    expect(folder.stderr).toContain(`--log ${tmp.dir} is a folder: not a file`);
    expect(folder.stderr).not.toContain("bug");
    // A FIFO is refused before it is opened: the open would wait for a writer for ever.
    const fifo = join(tmp.dir, "log.fifo");
    execFileSync("mkfifo", [fifo]);
    const piped = await b.run(["invite", "status", "--log", fifo]);
    expect(piped.code, piped.stderr).toBe(2);
    expect(piped.stderr).toContain(`--log ${fifo} is a FIFO: not a file`);
  });
});
