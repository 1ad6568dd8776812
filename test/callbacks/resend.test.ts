import { writeFileSync } from "node:fs";
import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SANDBOX_KEYS, useTempDir, useTestEnv } from "../helpers/cli.js";
import { eventually, type Recorder, startRecorder } from "./live.js";

const PROCESS_PATH = "/v3/callbacks/process";

const t = useTestEnv();
const tmp = useTempDir("assess-resend-");
let hooks: Recorder;
/** 250 finished attempts of the acme account, each with a callback URL. */
let own: number[];
/** Two finished attempts of the other demo account. */
let foreign: number[];

beforeAll(async () => {
  hooks = await startRecorder(200);
  own = [];
  for (let i = 0; i < 250; i++) {
    const res = await request(`${t.sandbox.url}/v3/tests/1002/invite`, {
      method: "POST",
      headers: { "x-api-key": SANDBOX_KEYS.acme, "content-type": "application/json" },
      body: JSON.stringify({
        emailId: `resend${i}@example.com`,
        fullName: `Resend ${i}`,
        callbackURL: hooks.url,
      }),
    });
    own.push(((await res.body.json()) as { testInvitationId: number }).testInvitationId);
  }
  for (const id of own) await t.sandbox.completeAttempt(id, "Complete");
  foreign = t.sandbox.state.invitations
    .filter((inv) => inv.accountId === "globex" && inv.status === "Complete")
    .slice(0, 2)
    .map((inv) => inv.testInvitationId);
  expect(foreign).toHaveLength(2);
});
afterAll(async () => {
  await hooks.close();
});

/** Each scenario gets its own config dir, so ledgers of one do not skip ids in another. */
let runs = 0;
async function resend(argv: string[], stdin?: string) {
  const before = t.sandbox.requests.length;
  const r = await t.run(["callbacks", "resend", ...argv], {
    env: { ASSESS_CONFIG_DIR: tmp.file(`config-${++runs}`) },
    stdin,
  });
  const calls = t.sandbox.requests.slice(before).filter((q) => q.path === PROCESS_PATH);
  return { r, calls, ids: calls.map((q) => (q.body as { testinvitationIds: number[] }).testinvitationIds) };
}

interface Summary {
  rows: number;
  sent: number;
  failed: number;
  alreadyDone: number;
  chunks: { total: number; succeeded: number; failed: number; uncertain: number };
  failures: Array<{ line: number; label: string; error: string }>;
}

describe("callbacks resend", () => {
  it("250 ids → 3 requests of ≤100, every id once; a repeated id is sent once", async () => {
    const { r, calls, ids: sent } = await resend([...own.map(String), String(own[0]), "--json"]);
    expect(r.code, r.stderr).toBe(0);
    expect(calls).toHaveLength(3);
    expect(sent.map((chunk) => chunk.length)).toEqual([100, 100, 50]);
    expect(sent.flat().sort()).toEqual([...own].sort());
    expect(r.json<Summary>()).toMatchObject({
      rows: 251,
      sent: 250,
      duplicates: 1,
      failed: 0,
      chunks: { total: 3, succeeded: 3, failed: 0, uncertain: 0 },
    });
  });

  it("2 foreign ids among 250 → the other 248 resent, the 2 reported, exit 3; a rerun resends only those 2", async () => {
    // The foreign ids sit in the first and the last chunk; the file mixes comments and blank lines.
    const mine = own.slice(0, 248);
    const file = tmp.file("ids.txt");
    const lines = [
      "# ids to resend",
      foreign[0]!,
      ...mine.slice(0, 150),
      "",
      `${foreign[1]}  # from the other account`,
      ...mine.slice(150),
    ];
    writeFileSync(file, `${lines.join("\r\n")}\r\n`);
    const env = { ASSESS_CONFIG_DIR: tmp.file("config-foreign") };
    const before = t.sandbox.requests.length;
    const hooksBefore = hooks.received.length;
    const r = await t.run(["callbacks", "resend", "--file", file, "--json"], { env });
    expect(r.code, r.stderr).toBe(3);
    const calls = t.sandbox.requests.slice(before).filter((q) => q.path === PROCESS_PATH);
    const accepted = calls
      .filter((q) => q.status === 200)
      .flatMap((q) => (q.body as { testinvitationIds: number[] }).testinvitationIds);
    expect(accepted.sort()).toEqual([...mine].sort());
    expect(
      calls.every((q) => (q.body as { testinvitationIds: number[] }).testinvitationIds.length <= 100),
    ).toBe(true);
    expect(calls.filter((q) => q.status === 401)).toHaveLength(2);

    const summary = r.json<Summary>();
    expect(summary).toMatchObject({ rows: 250, sent: 250, failed: 2 });
    expect(summary.failures.map((f) => [f.label, f.line])).toEqual([
      [String(foreign[0]), 2],
      [String(foreign[1]), 154],
    ]);
    expect(summary.failures[0]!.error).toContain("not found in this account");
    // The 248 notifications are delivered again to their callback URL.
    await eventually(() => hooks.received.length - hooksBefore >= 248 || undefined, "248 re-deliveries");

    const rerun = await t.run(["callbacks", "resend", "--file", file, "--json"], { env });
    expect(rerun.code).toBe(3);
    expect(rerun.json<Summary>()).toMatchObject({ rows: 250, alreadyDone: 248, sent: 2, failed: 2 });
  });

  it("--from/--to resends every finished attempt of the period", async () => {
    const { r, ids } = await resend(["--from", "1h", "--to", "+1h", "--json"]);
    expect(r.code, r.stderr).toBe(0);
    expect(ids.map((chunk) => chunk.length)).toEqual([100, 100, 50]);
    expect(ids.flat().sort()).toEqual([...own].sort());
  });

  it("--dry-run --json prints one JSON document: the summary, with the requests it would send", async () => {
    const ids = own.slice(0, 150).map(String);
    const { r, calls } = await resend([...ids, "--dry-run", "--json"]);
    expect(r.code, r.stderr).toBe(0);
    expect(calls).toHaveLength(0);
    const summary = r.json<{ dryRun: boolean; wouldSend: number; requests: Array<{ body: unknown }> }>();
    expect(summary).toMatchObject({ dryRun: true, wouldSend: 150 });
    expect(summary.requests.map((q) => q.body)).toEqual([
      { testinvitationIds: own.slice(0, 100) },
      { testinvitationIds: own.slice(100, 150) },
    ]);
    expect(r.stdout).not.toContain(SANDBOX_KEYS.acme);
  });

  it("reads ids from stdin with --file -", async () => {
    const { r, ids } = await resend(["--file", "-", "--json"], `${own[5]}\n\n# done\n${own[6]}\n`);
    expect(r.code, r.stderr).toBe(0);
    expect(ids).toEqual([[own[5], own[6]]]);
  });

  it("bad input is a usage error naming where it is, and nothing is sent", async () => {
    const file = tmp.file("bad.txt");
    writeFileSync(file, `${own[0]}\nabc\n12.5\n`);
    const bad = await resend(["--file", file]);
    expect(bad.r.code).toBe(2);
    expect(bad.r.stderr).toContain(`${file}:2: "abc" is not a testInvitationId`);
    expect(bad.r.stderr).toContain(`${file}:3: "12.5"`);
    expect(bad.calls).toHaveLength(0);

    const args = await resend([String(own[0]), "-7x"]);
    expect(args.r.code).toBe(2);
    expect(args.calls).toHaveLength(0);

    const empty = tmp.file("empty.txt");
    writeFileSync(empty, "# nothing yet\n\n");
    const nothing = await resend(["--file", empty]);
    expect(nothing.r.code).toBe(2);
    expect(nothing.r.stderr).toContain(`${empty} holds no ids: nothing to resend`);

    const none = await resend([]);
    expect(none.r.code).toBe(2);
    expect(none.r.stderr).toContain("Nothing to resend");

    const both = await resend([String(own[0]), "--file", file]);
    expect(both.r.code).toBe(2);

    const big = await resend([String(own[0]), "--chunk-size", "101"]);
    expect(big.r.code).toBe(2);
  });
});
