/**
 * Bulk invites and upserts from code, against the sandbox over loopback HTTP: one outcome per row (sent,
 * failed, invalid, duplicate, uncertain, alreadyDone, unsent), requests of at most chunkSize rows, (async)
 * iterables as input, and the ledger as an option (shared with the CLI's bulk commands).
 */
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { SANDBOX_KEYS, type Sandbox } from "../../src/sandbox/index.js";
import {
  AssessApiError,
  type AssessClient,
  AssessInterruptedError,
  AssessUsageError,
  createClient,
} from "../../src/sdk/index.js";
import { runCli, useTestEnv } from "../helpers/cli.js";

const t = useTestEnv();
let sandbox: Sandbox;
let configDir: string;
let client: AssessClient;

beforeAll(async () => {
  ({ sandbox, configDir } = t);
  client = createClient({
    apiKey: SANDBOX_KEYS.acme,
    baseUrl: sandbox.url,
    skillsBaseUrl: sandbox.skillsUrl,
    env: { ASSESS_CONFIG_DIR: configDir },
    retries: 0,
  });
});

afterEach(() => sandbox.faults.clear());

afterAll(async () => {
  await client.close();
});

let run = 0;
/** Candidates no other test of this file invites. */
function candidates(n: number): Array<{ email: string; name: string }> {
  run++;
  return Array.from({ length: n }, (_, i) => ({
    email: `sdk${run}-${i}@example.com`,
    name: `Candidate ${i}`,
  }));
}

function bulkRequests(testId: number) {
  return sandbox.requests.filter((r) => r.method === "POST" && r.path === `/v3/tests/${testId}/invite/bulk`);
}

describe("invitations.bulk", () => {
  it("gives each row its outcome: sent, invalid, duplicate; in requests of at most chunkSize", async () => {
    const rows = [...candidates(5), { email: "not-an-email", name: "Broken" }, { email: "", name: "" }];
    rows.push({ ...rows[1]!, email: rows[1]!.email.toUpperCase() });
    const before = bulkRequests(1001).length;
    const outcome = await client.invitations.bulk(1001, rows, { chunkSize: 2 });
    expect(outcome.rows.map((r) => r.status)).toEqual([
      "sent",
      "sent",
      "sent",
      "sent",
      "sent",
      "invalid",
      "invalid",
      "duplicate",
    ]);
    expect(outcome.rows[5]!.error).toMatch(/email: "not-an-email" is not a valid e-mail address/);
    expect(outcome.rows[6]!.error).toMatch(/email: empty; name: empty/);
    expect(outcome.rows[7]!.error).toBe("repeats an earlier row; sent once");
    expect(outcome.rows.map((r) => r.index)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(outcome.rows[0]!.row).toBe(rows[0]);
    expect(outcome.counts).toMatchObject({ sent: 5, invalid: 2, duplicate: 1, failed: 0 });
    const sent = bulkRequests(1001).slice(before);
    expect(sent.map((r) => (r.body as { candidates: unknown[] }).candidates.length)).toEqual([2, 2, 1]);
    // The sandbox now holds an invitation of each sent candidate.
    const invited = new Set(sandbox.state.invitations.map((i) => i.email.toLowerCase()));
    for (const row of rows.slice(0, 5)) expect(invited.has(row.email.toLowerCase())).toBe(true);
  });

  it("takes an async iterable of rows, and the invitations' settings", async () => {
    const rows = candidates(3);
    async function* generate() {
      for (const row of rows) {
        await new Promise((resolve) => setImmediate(resolve));
        yield row;
      }
    }
    const before = bulkRequests(1002).length;
    const outcome = await client.invitations.bulk(1002, generate(), {
      settings: { proctoringMode: "image", endDateTime: "2099-01-01T00:00:00Z" },
    });
    expect(outcome.counts.sent).toBe(3);
    const [request] = bulkRequests(1002).slice(before);
    expect(request!.body).toMatchObject({ proctoringMode: "image", endDateTime: "2099-01-01T00:00:00Z" });
  });

  it("with a ledger, a rerun sends nothing twice; restart sends everything again", async () => {
    const ledgerDir = mkdtempSync(join(tmpdir(), "assess-sdk-ledger-"));
    try {
      const rows = candidates(4);
      const first = await client.invitations.bulk(1003, rows, { ledger: ledgerDir });
      expect(first.counts.sent).toBe(4);
      expect(first.ledger).toMatch(/^.*invite-test1003-\w+\.ndjson$/);
      expect(readdirSync(ledgerDir)).toContain(first.ledger!.split("/").at(-1));

      const more = [...rows, ...candidates(1)];
      const before = bulkRequests(1003).length;
      const second = await client.invitations.bulk(1003, more, { ledger: ledgerDir });
      expect(second.rows.map((r) => r.status)).toEqual([
        "alreadyDone",
        "alreadyDone",
        "alreadyDone",
        "alreadyDone",
        "sent",
      ]);
      const sent = bulkRequests(1003).slice(before);
      expect(
        sent.map((r) => (r.body as { candidates: Array<{ email: string }> }).candidates.map((c) => c.email)),
      ).toEqual([[more[4]!.email]]);

      const third = await client.invitations.bulk(1003, rows.slice(0, 1), {
        ledger: ledgerDir,
        restart: true,
      });
      expect(third.counts.sent).toBe(1);
    } finally {
      rmSync(ledgerDir, { recursive: true, force: true });
    }
  });

  it("shares the ledger with `assess invite bulk`: rows the SDK sent, the CLI skips", async () => {
    const rows = candidates(2);
    // ledger: true is the CLI's ledger folder, under the client's ASSESS_CONFIG_DIR.
    await client.invitations.bulk(1004, rows, { ledger: true });
    const file = join(configDir, "again.csv");
    writeFileSync(file, `email,name\n${rows.map((r) => `${r.email},${r.name}`).join("\n")}\n`);
    const cli = await runCli(["invite", "bulk", file, "--test", "1004", "-o", "json"], {
      env: {
        ASSESS_API_KEY: SANDBOX_KEYS.acme,
        ASSESS_BASE_URL: sandbox.url,
        ASSESS_SKILLS_BASE_URL: sandbox.skillsUrl,
        ASSESS_CONFIG_DIR: configDir,
      },
    });
    expect(cli.code, cli.stderr).toBe(0);
    expect(cli.json<{ alreadyDone: number; sent: number }>()).toMatchObject({ alreadyDone: 2, sent: 0 });
  });

  it("a lost answer makes its rows uncertain, and the ledger keeps them from being resent", async () => {
    const ledgerDir = mkdtempSync(join(tmpdir(), "assess-sdk-ledger-"));
    try {
      const rows = candidates(3);
      sandbox.faults.add({ method: "POST", path: "/v3/tests/*/invite/bulk", kind: "lost-after" });
      const first = await client.invitations.bulk(1001, rows, { ledger: ledgerDir, chunkSize: 2 });
      expect(first.rows.map((r) => r.status)).toEqual(["uncertain", "uncertain", "sent"]);
      expect(first.rows[0]!.error).toMatch(/may have been processed/);

      const before = bulkRequests(1001).length;
      const second = await client.invitations.bulk(1001, rows, { ledger: ledgerDir });
      expect(second.rows.map((r) => r.status)).toEqual(["uncertain", "uncertain", "alreadyDone"]);
      expect(bulkRequests(1001).length).toBe(before);

      const third = await client.invitations.bulk(1001, rows, { ledger: ledgerDir, retryUncertain: true });
      expect(third.rows.map((r) => r.status)).toEqual(["sent", "sent", "alreadyDone"]);
    } finally {
      rmSync(ledgerDir, { recursive: true, force: true });
    }
  });

  it("a request the service refuses fails its rows only; a refused key stops the run and throws", async () => {
    const rows = candidates(4);
    sandbox.faults.add({
      method: "POST",
      path: "/v3/tests/*/invite/bulk",
      kind: "status",
      status: 400,
      body: JSON.stringify({ errors: ["Candidate list rejected"] }),
      contentType: "application/json",
    });
    const outcome = await client.invitations.bulk(1001, rows, { chunkSize: 2, concurrency: 1 });
    expect(outcome.rows.map((r) => r.status)).toEqual(["failed", "failed", "sent", "sent"]);
    expect(outcome.rows[0]!.error).toContain("Candidate list rejected");

    sandbox.faults.add({
      method: "POST",
      path: "/v3/tests/*/invite/bulk",
      kind: "status",
      status: 401,
      skip: 1,
    });
    const error = await client.invitations
      .bulk(1001, candidates(6), { chunkSize: 2, concurrency: 1 })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AssessApiError);
    const partial = (error as { outcome?: { rows: Array<{ status: string; error?: string }> } }).outcome;
    // The refused request's rows failed (with the 401); the rows after it were never sent.
    expect(partial?.rows.map((r) => r.status)).toEqual([
      "sent",
      "sent",
      "failed",
      "failed",
      "unsent",
      "unsent",
    ]);
    expect(partial?.rows[2]?.error).toMatch(/^Unauthorized/);
  });

  it("stops sending when its signal is aborted: the rest is unsent, and the run throws", async () => {
    const controller = new AbortController();
    const rows = candidates(6);
    const before = bulkRequests(1001).length;
    const error = await client.invitations
      .bulk(
        1001,
        (async function* () {
          yield* rows;
        })(),
        {
          chunkSize: 2,
          concurrency: 1,
          signal: controller.signal,
        },
      )
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    // Not aborted: everything went.
    expect(error).toBeUndefined();
    expect(bulkRequests(1001).length - before).toBe(3);

    controller.abort();
    const stopped = (await client.invitations
      .bulk(1001, candidates(4), { chunkSize: 2, signal: controller.signal })
      .catch((e: unknown) => e)) as { outcome?: { rows: Array<{ status: string }> } };
    expect(stopped).toBeInstanceOf(AssessInterruptedError);
    expect(stopped.outcome?.rows.map((r) => r.status)).toEqual(["unsent", "unsent", "unsent", "unsent"]);
    expect(bulkRequests(1001).length - before).toBe(3);
  });

  it("refuses settings that break their schema before sending anything", async () => {
    const before = bulkRequests(1001).length;
    const error = await client.invitations
      .bulk(1001, candidates(2), { settings: { endDateTime: "tomorrow" } })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AssessUsageError);
    expect((error as InstanceType<typeof AssessUsageError>).messages).toEqual([
      "settings.endDateTime: must be YYYY-MM-DDTHH:mm:ssZ",
    ]);
    expect(bulkRequests(1001).length).toBe(before);
  });

  it("refuses a chunkSize beyond the service's limit before reading a row", async () => {
    await expect(client.invitations.bulk(1001, candidates(1), { chunkSize: 1001 })).rejects.toThrow(
      /chunkSize must be a whole number from 1 to 1000/,
    );
  });
});

describe("employees.upsert", () => {
  it("gives each row its outcome, with the service's per-employee refusals and conflicting rows", async () => {
    const rows = [
      { email: "sdk-up-1@example.com", firstName: "Ann", lastName: "One" },
      { email: "sdk-up-2@example.com", firstName: "Bob" }, // no last name: the service refuses it
      { email: "sdk-up-3@example.com", firstName: "Cy", lastName: "Three" },
      { email: "SDK-UP-3@example.com", firstName: "Cy", lastName: "Other" }, // the same e-mail, other values
      { email: "sdk-up-1@example.com", firstName: "Ann", lastName: "One" }, // a repeat
      { email: "bad", firstName: "X", lastName: "Y" },
    ];
    const outcome = await client.employees.upsert(rows);
    expect(outcome.rows.map((r) => r.status)).toEqual([
      "sent",
      "failed",
      "invalid",
      "invalid",
      "duplicate",
      "invalid",
    ]);
    expect(outcome.rows[1]!.error).toMatch(/Last name is required/);
    // Each of the two names the other, by its index in the input.
    expect(outcome.rows[2]!.error).toBe("conflicts with rows[3]: the same e-mail with other values");
    expect(outcome.rows[3]!.error).toBe("conflicts with rows[2]: the same e-mail with other values");
    expect(outcome.rows[5]!.error).toMatch(/^email: /);
    const stored = sandbox.state.employees.find((e) => e.email === "sdk-up-1@example.com");
    expect(stored).toMatchObject({ firstName: "Ann", lastName: "One" });
  });

  it("checks and converts an employee as a JSON array file's item: its messages, the dates a CSV row sends", async () => {
    const upserts = () =>
      sandbox.requests.filter((r) => r.method === "POST" && r.path === "/employees/upsert");
    const before = upserts().length;
    const refused = await client.employees.upsert([
      { email: "sdk-date-1@example.com", employeeHRMSInfo: { hireDate: "March 3, 2024" } },
      { email: "sdk-date-2@example.com", nickname: "Dee" } as never,
      { email: "sdk-date-5@example.com", employeeHRMSInfo: { exitDate: 20240303 } } as never,
    ]);
    expect(refused.rows.map((r) => [r.status, r.error])).toEqual([
      ["invalid", 'hireDate: "March 3, 2024" is not a date (use YYYY-MM-DD or ISO 8601)'],
      ["invalid", "unknown field: nickname"],
      ["invalid", "exitDate: 20240303 is not a date (use YYYY-MM-DD or ISO 8601)"],
    ]);
    expect(upserts()).toHaveLength(before);

    const rows = [{ email: "sdk-date-3@example.com", firstName: "Di", lastName: "Three" }];
    const sdk = await client.employees.upsert([
      { ...rows[0]!, employeeHRMSInfo: { hireDate: "2024-03-03" } },
    ]);
    expect(sdk.counts.sent).toBe(1);
    const file = join(configDir, "dates.csv");
    writeFileSync(file, "email,firstName,lastName,hireDate\nsdk-date-4@example.com,Di,Four,2024-03-03\n");
    const cli = await runCli(["employees", "upsert", file, "-o", "json"], {
      env: {
        ASSESS_API_KEY: SANDBOX_KEYS.acme,
        ASSESS_BASE_URL: sandbox.url,
        ASSESS_SKILLS_BASE_URL: sandbox.skillsUrl,
        ASSESS_CONFIG_DIR: configDir,
      },
    });
    expect(cli.code, cli.stderr).toBe(0);
    const sent = upserts()
      .slice(before)
      .map((r) => (r.body as Array<{ employeeHRMSInfo?: unknown }>)[0]!.employeeHRMSInfo);
    expect(sent).toEqual([{ hireDate: "2024-03-03T00:00:00Z" }, { hireDate: "2024-03-03T00:00:00Z" }]);
  });

  it("with a ledger, an unchanged employee is not sent again and a changed one is", async () => {
    const ledgerDir = mkdtempSync(join(tmpdir(), "assess-sdk-ledger-"));
    try {
      const rows = [
        { email: "sdk-led-1@example.com", firstName: "Dee", lastName: "One" },
        { email: "sdk-led-2@example.com", firstName: "Eve", lastName: "Two" },
      ];
      expect((await client.employees.upsert(rows, { ledger: ledgerDir })).counts.sent).toBe(2);
      const changed = [rows[0]!, { ...rows[1]!, lastName: "Changed" }];
      const again = await client.employees.upsert(changed, { ledger: ledgerDir });
      expect(again.rows.map((r) => r.status)).toEqual(["alreadyDone", "sent"]);
      expect(sandbox.state.employees.find((e) => e.email === "sdk-led-2@example.com")?.lastName).toBe(
        "Changed",
      );
    } finally {
      rmSync(ledgerDir, { recursive: true, force: true });
    }
  });
});
