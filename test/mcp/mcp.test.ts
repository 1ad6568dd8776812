/**
 * `assess mcp` driven as an assistant drives it: by the MCP SDK's own client, the server run by main(argv, io)
 * in-process (test/mcp/helpers.ts), against a sandbox on an ephemeral loopback port; the built CLI (bin/assess.js)
 * over stdio where its process is the subject (stdin ending just after a call). Every message of every
 * conversation and the server's stderr are recorded, and the key must be in none of them.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable, Writable } from "node:stream";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { Ajv2020 } from "ajv/dist/2020.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHostileServer } from "../../fixtures/hostile/servers.js";
import { main } from "../../src/cli.js";
import { SANDBOX_KEYS, type Sandbox, startSandbox } from "../../src/sandbox/index.js";
import { capture, runCli, stopWhenTestEnds } from "../helpers/cli.js";
import { BIN, callTool as call, connectMcp, untrustedBlock } from "./helpers.js";

const KEY = SANDBOX_KEYS.acme;
const READ_TOOLS = [
  "list_tests",
  "get_test",
  "get_test_settings",
  "list_test_links",
  "get_test_link",
  "list_attempts",
  "get_report",
  "report_stats",
  "list_employees",
  "list_skills_profiles",
  "get_skills_profile",
  "list_certificates",
  "get_skill_gap",
  "get_employee_report",
  "invitation_status",
];

let sandbox: Sandbox;
let configDir: string;
let env: Record<string, string>;
/** Every byte of every conversation: messages both ways, and the servers' stderr. */
const transcript: string[] = [];
const open: Client[] = [];

beforeAll(async () => {
  sandbox = await startSandbox({ assessPrefix: "/api", skillsPrefix: "/skills" });
  configDir = mkdtempSync(join(tmpdir(), "assess-mcp-"));
  env = {
    PATH: process.env.PATH ?? "",
    NO_COLOR: "1",
    ASSESS_BASE_URL: sandbox.url,
    ASSESS_SKILLS_BASE_URL: sandbox.skillsUrl,
    ASSESS_API_KEY: KEY,
    ASSESS_CONFIG_DIR: configDir,
  };
});

afterAll(async () => {
  for (const client of open) await client.close();
  await sandbox.close();
  rmSync(configDir, { recursive: true, force: true });
});

/** `assess mcp <flags>` connected (initialize done), its conversation recorded. */
async function connect(...flags: string[]): Promise<Client> {
  return connectTo(env, flags);
}

async function connectTo(serverEnv: Record<string, string>, flags: string[]): Promise<Client> {
  const client = await connectMcp(serverEnv, flags, transcript);
  open.push(client);
  return client;
}

async function cliJson(argv: string[]): Promise<unknown> {
  const r = await runCli([...argv, "--json"], { env });
  expect(r.code, r.stderr).toBe(0);
  return r.json();
}

/** The built CLI with `input` on its stdin (then closed): its exit status and output. */
function spawnWith(
  args: string[],
  input: string,
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const child = stopWhenTestEnds(spawn(process.execPath, args, { env }));
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  child.stdout.on("data", (chunk: Buffer) => out.push(chunk));
  child.stderr.on("data", (chunk: Buffer) => err.push(chunk));
  child.stdin.end(input);
  return new Promise((resolve) =>
    child.on("close", (status) =>
      resolve({
        status,
        stdout: Buffer.concat(out).toString("utf8"),
        stderr: Buffer.concat(err).toString("utf8"),
      }),
    ),
  );
}

function requestsSince(seq: number, method: string, path: RegExp) {
  return sandbox.requests.filter((r) => r.seq > seq && r.method === method && path.test(r.path));
}

const lastSeq = () => sandbox.requests.at(-1)?.seq ?? 0;

describe("assess mcp, read-only (the default)", () => {
  let client: Client;
  beforeAll(async () => {
    client = await connect();
  });

  it("initializes as assess, with tools, resources and prompts", () => {
    expect(client.getServerVersion()).toMatchObject({ name: "assess" });
    expect(client.getServerCapabilities()).toMatchObject({ tools: {}, resources: {}, prompts: {} });
  });

  it("lists only read tools, each read-only, with an input schema that compiles", async () => {
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual([...READ_TOOLS].sort());
    const ajv = new Ajv2020({ strict: false });
    for (const tool of tools) {
      expect(tool.annotations?.readOnlyHint, tool.name).toBe(true);
      expect(tool.description?.length, tool.name).toBeGreaterThan(20);
      expect(tool.inputSchema.type, tool.name).toBe("object");
      expect(() => ajv.compile(tool.inputSchema), tool.name).not.toThrow();
    }
    const getTest = tools.find((tool) => tool.name === "get_test")!;
    expect(getTest.inputSchema).toMatchObject({
      required: ["testId"],
      properties: { testId: { type: "integer", exclusiveMinimum: 0 } },
      additionalProperties: false,
    });
  });

  it("list_tests pages with a cursor, and its items are `tests list --json`'s", async () => {
    const first = await call(client, "list_tests", { pageSize: 2 });
    expect(first.result.isError).toBeFalsy();
    expect(untrustedBlock(first.text).value).toEqual(first.data);
    expect(first.data.items).toEqual(await cliJson(["tests", "list", "--page-size", "2"]));
    expect(first.data.nextCursor).toEqual(expect.any(String));
    const second = await call(client, "list_tests", { cursor: first.data.nextCursor });
    expect(second.data.items).toEqual(await cliJson(["tests", "list", "--page", "2", "--page-size", "2"]));
  });

  it("get_test_settings, list_attempts, list_employees and report_stats answer what the CLI's --json prints", async () => {
    const settings = await call(client, "get_test_settings", { testId: 1001 });
    expect(settings.data).toEqual(await cliJson(["tests", "settings", "get", "1001"]));

    const long = await call(client, "list_attempts", { from: "2024-01-01", to: "2025-06-30" });
    expect(long.data.items).toEqual(
      await cliJson(["attempts", "list", "--from", "2024-01-01", "--to", "2025-06-30"]),
    );
    const tooLong = await call(client, "list_attempts", { from: "2020-01-01", to: "2021-12-31" });
    expect(tooLong.result.isError).toBe(true);
    expect(tooLong.text).toContain("takes 25 calls to the service");
    // Fixed times: "60d" read a second later is another period.
    const to = `${new Date().toISOString().slice(0, 19)}Z`;
    const from = `${new Date(Date.now() - 60 * 86_400_000).toISOString().slice(0, 19)}Z`;
    const recent = await call(client, "list_attempts", { from, to });
    const recentCli = (await cliJson(["attempts", "list", "--from", from, "--to", to])) as unknown[];
    expect(recentCli.length).toBeGreaterThan(0);
    expect(recent.data.items).toEqual(recentCli);

    const employees = await call(client, "list_employees", { pageSize: 5 });
    expect(employees.data.items).toEqual(await cliJson(["employees", "list", "--page-size", "5"]));

    const stats = await call(client, "report_stats", { from, to, passMark: 70 });
    const cli = (await cliJson([
      "reports",
      "stats",
      "--from",
      from,
      "--to",
      to,
      "--pass-mark",
      "70",
    ])) as Array<Record<string, unknown>>;
    expect(cli.length).toBeGreaterThan(0);
    expect(stats.data.tests).toEqual(cli);
  });

  it("a refused call is an error result in the service's words, and the server goes on", async () => {
    const refused = await call(client, "get_test", { testId: 2001 });
    expect(refused.result.isError).toBe(true);
    const cli = await runCli(["tests", "get", "2001", "--json"], { env });
    const cliError = JSON.parse(cli.stderr.trim().split("\n").at(-1)!) as { error: { messages: string[] } };
    expect(refused.data).toMatchObject({ error: { status: 403, messages: cliError.error.messages } });
    expect(refused.text).toContain("You do not have permission to access resource");
    expect((await call(client, "get_test", { testId: 1001 })).data).toMatchObject({ testId: 1001 });
  });

  it("bad arguments are refused in words, before anything is sent", async () => {
    const before = lastSeq();
    const wrongType = await call(client, "get_test", { testId: "abc" });
    expect(wrongType.result.isError).toBe(true);
    expect(wrongType.text).toMatch(/^Invalid arguments for get_test: testId: .*number/);
    const extra = await call(client, "get_test", { testId: 1001, verbose: true });
    expect(extra.text).toMatch(/Unrecognized key.*verbose/);
    const badDate = await call(client, "list_attempts", { from: "last tuesday", to: "now" });
    expect(badDate.result.isError).toBe(true);
    expect(badDate.text).toContain('"last tuesday" is not a date');
    const badCursor = await call(client, "list_tests", { cursor: "p0s999" });
    expect(badCursor.text).toContain("is not one this server gave");
    const unknown = await call(client, "drop_tables");
    expect(unknown.text).toContain('Unknown tool "drop_tables"');
    expect(requestsSince(before, "GET", /./)).toEqual([]);
  });

  it("a write tool is refused without --allow-writes, and nothing is sent", async () => {
    const before = lastSeq();
    const refused = await call(client, "cancel_invitation", { testInvitationId: 1 });
    expect(refused.result.isError).toBe(true);
    expect(refused.text).toContain("--allow-writes invite");
    expect(sandbox.requests.filter((r) => r.seq > before)).toEqual([]);
  });

  it("offers the test list as a resource, and a weekly summary prompt", async () => {
    const { resources } = await client.listResources();
    expect(resources.map((r) => r.uri)).toEqual(["assess://tests"]);
    const read = await client.readResource({ uri: "assess://tests" });
    const tests = JSON.parse(String((read.contents[0] as { text: string }).text)) as unknown[];
    expect(tests).toEqual(await cliJson(["tests", "list", "--all"]));
    const prompt = await client.getPrompt({ name: "weekly_results_summary", arguments: { passMark: "80" } });
    expect(JSON.stringify(prompt.messages)).toContain("report_stats");
    expect(JSON.stringify(prompt.messages)).toContain("passMark 80");
  });
});

describe("assess mcp --allow-writes", () => {
  it("--allow-writes invite offers the invite tools only, and a write goes out once", async () => {
    const client = await connect("--allow-writes", "invite");
    const { tools } = await client.listTools();
    const invite = tools.find((tool) => tool.name === "invite_candidate");
    expect(invite?.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: false });
    expect(tools.find((tool) => tool.name === "cancel_invitation")?.annotations?.destructiveHint).toBe(true);
    expect(tools.some((tool) => tool.name === "mask_candidate")).toBe(false);
    const masked = await call(client, "mask_candidate", { CandidateEmail: "a@example.com" });
    expect(masked.text).toContain("--allow-writes gdpr");

    const before = lastSeq();
    const invited = await call(client, "invite_candidate", {
      testId: 1001,
      emailId: "mcp.one@example.com",
      fullName: "Mcp One",
    });
    expect(invited.result.isError, invited.text).toBeFalsy();
    expect(invited.data.testInvitationId).toEqual(expect.any(Number));
    const sent = requestsSince(before, "POST", /^\/v3\/tests\/1001\/invite$/);
    expect(sent.map((r) => r.body)).toEqual([{ emailId: "mcp.one@example.com", fullName: "Mcp One" }]);
  });

  it("a write answered 201 with an empty body is a success: the answer as it came, with the warning", async () => {
    // Every write is answered 201 with no body; the link's read (set_test_link_status's preview) with the link.
    const link = { testLinkId: 3001, testLinkName: "Link", testLinkStatus: "active" };
    const server = await startHostileServer((x) => {
      const body = x.req.method === "GET" ? JSON.stringify(link) : "";
      x.res.writeHead(x.req.method === "GET" ? 200 : 201, { "content-type": "application/json" });
      void x.write(body).then(() => x.res.end());
    });
    try {
      const client = await connectTo({ ...env, ASSESS_BASE_URL: server.url }, ["--allow-writes"]);
      const invited = await call(client, "invite_candidate", {
        testId: 1001,
        emailId: "mcp.unread@example.com",
        fullName: "Mcp Unread",
      });
      expect(invited.result.isError, invited.text).toBeFalsy();
      expect(invited.data).toEqual({
        result: null,
        warning: expect.stringMatching(/^The service accepted POST \/v3\/tests\/1001\/invite \(HTTP 201\)/),
      });
      const args = { testId: 1001, testLinkId: 3001, status: "inactive" };
      const preview = await call(client, "set_test_link_status", args);
      const confirmToken = preview.data.confirmToken;
      const status = await call(client, "set_test_link_status", { ...args, confirmToken });
      expect(status.result.isError, status.text).toBeFalsy();
      expect(status.data.warning).toMatch(/Check the link \(`assess links get 3001 --test 1001`\)/);
      expect(server.requests.map((request) => `${request.method} ${request.url}`)).toEqual([
        "POST /v3/tests/1001/invite",
        "GET /v3/tests/1001/testlinks/3001",
        "GET /v3/tests/1001/testlinks/3001",
        "POST /v3/tests/1001/testlinks/3001",
      ]);
    } finally {
      await server.close();
    }
  });

  it("a bulk invite answers with a plan, sends only with its token, once, into the CLI's ledger", async () => {
    const client = await connect("--allow-writes");
    const candidates = [
      { email: "bulk.a@example.com", name: "Bulk A" },
      { email: "bulk.b@example.com", name: "Bulk B" },
      { email: "BULK.A@example.com", name: "Bulk A again" },
      { email: "bulk.c@example.com", name: "Bulk C" },
    ];
    const before = lastSeq();
    const plan = await call(client, "invite_candidates", { testId: 1002, candidates });
    expect(plan.result.isError, plan.text).toBeFalsy();
    expect(plan.data).toMatchObject({
      plan: true,
      testId: 1002,
      rows: 4,
      toSend: 3,
      duplicates: 1,
      alreadyDone: 0,
    });
    expect(plan.data.rowsToSend).toEqual([
      { row: 0, item: "bulk.a@example.com" },
      { row: 1, item: "bulk.b@example.com" },
      { row: 3, item: "bulk.c@example.com" },
    ]);
    expect(plan.data.duplicateRows).toMatchObject([{ row: 2, item: "BULK.A@example.com" }]);
    expect(requestsSince(before, "POST", /invite\/bulk/)).toEqual([]);

    const forged = await call(client, "invite_candidates", {
      testId: 1002,
      candidates,
      planToken: "x".repeat(32),
    });
    expect(forged.result.isError).toBe(true);
    expect(forged.text).toContain("planToken is not the token of this plan");
    const changed = await call(client, "invite_candidates", {
      testId: 1002,
      candidates: candidates.slice(0, 2),
      planToken: plan.data.planToken,
    });
    expect(changed.result.isError).toBe(true);
    expect(requestsSince(before, "POST", /invite\/bulk/)).toEqual([]);

    const done = await call(client, "invite_candidates", {
      testId: 1002,
      candidates,
      planToken: plan.data.planToken,
    });
    expect(done.result.isError, done.text).toBeFalsy();
    expect(done.data).toMatchObject({ done: true, sent: 3, duplicates: 1, uncertain: 0, failed: 0 });
    const bulk = requestsSince(before, "POST", /^\/v3\/tests\/1002\/invite\/bulk$/);
    expect(bulk).toHaveLength(1);
    expect((bulk[0]!.body as { candidates: unknown[] }).candidates).toEqual([
      { email: "bulk.a@example.com", name: "Bulk A" },
      { email: "bulk.b@example.com", name: "Bulk B" },
      { email: "bulk.c@example.com", name: "Bulk C" },
    ]);
    expect(
      readdirSync(join(configDir, "ledgers")).filter((f) => f.startsWith("invite-test1002")),
    ).toHaveLength(1);

    // The same token again, or a new plan: the ledger says all is done, so nothing more goes out.
    const again = await call(client, "invite_candidates", {
      testId: 1002,
      candidates,
      planToken: plan.data.planToken,
    });
    expect(again.result.isError).toBe(true);
    const replan = await call(client, "invite_candidates", { testId: 1002, candidates });
    expect(replan.data).toMatchObject({ toSend: 0, alreadyDone: 3, duplicates: 1 });
    expect(replan.data.planToken).toBeUndefined();

    // The CLI reads the same ledger: `invite bulk` of the same people sends nothing.
    const csv = join(configDir, "people.csv");
    writeFileSync(csv, `email,name\n${candidates.map((c) => `${c.email},${c.name}`).join("\n")}\n`);
    const cli = await runCli(["invite", "bulk", csv, "--test", "1002", "--json"], { env });
    expect(cli.code, cli.stderr).toBe(0);
    expect(cli.json()).toMatchObject({ alreadyDone: 3, sent: 0 });
    expect(requestsSince(before, "POST", /invite\/bulk/)).toHaveLength(1);
  });

  it("invitation_status reads the invitation book; remind_candidates plans, then reminds once with its token", async () => {
    const csv = join(configDir, "chase.csv");
    const people = ["chase.a", "chase.b", "chase.c"].map((n) => `${n}@example.com`);
    writeFileSync(csv, `email,name\n${people.map((e) => `${e},${e.split("@")[0]}`).join("\n")}\n`);
    const bulk = await runCli(["invite", "bulk", csv, "--test", "1005", "--end", "+3d"], { env });
    expect(bulk.code, bulk.stderr).toBe(0);
    const done = sandbox.state.invitations.findLast((i) => i.email === people[0] && i.testId === 1005)!;
    await sandbox.completeAttempt(done.testInvitationId, "Complete");

    const reader = await connect();
    const status = await call(reader, "invitation_status", { testIds: [1005], candidates: true });
    expect(status.result.isError, status.text).toBeFalsy();
    expect(status.data.tests).toEqual([
      { testId: 1005, invited: 3, finished: 1, started: 0, pending: 2, expired: 0 },
    ]);
    const cli = (await cliJson(["invite", "status", "--test", "1005"])) as Record<string, unknown>;
    expect(status.data).toEqual(cli);
    expect((await call(reader, "remind_candidates", { testId: 1005 })).text).toContain(
      "--allow-writes invite",
    );

    const client = await connect("--allow-writes", "invite");
    const before = lastSeq();
    const args = { testId: 1005, olderThanHours: 0, extendDays: 7 };
    const plan = await call(client, "remind_candidates", args);
    expect(plan.result.isError, plan.text).toBeFalsy();
    expect(plan.data).toMatchObject({ plan: true, testId: 1005, toSend: 2, finished: 1 });
    const reminders = plan.data.reminders as Array<{ email: string; newEnd: string }>;
    expect(reminders.map((r) => r.email).sort()).toEqual(people.slice(1));
    expect(requestsSince(before, "POST", /\/invite$/)).toEqual([]);

    const sent = await call(client, "remind_candidates", { ...args, planToken: plan.data.planToken });
    expect(sent.result.isError, sent.text).toBeFalsy();
    expect(sent.data).toMatchObject({ done: true, sent: 2, uncertain: 0, failed: 0 });
    const requests = requestsSince(before, "POST", /^\/v3\/tests\/1005\/invite$/);
    expect(requests.map((r) => (r.body as { emailId: string }).emailId).sort()).toEqual(people.slice(1));
    for (const r of requests) {
      const { emailId, endDateTime } = r.body as { emailId: string; endDateTime: string };
      expect(r.body).toMatchObject({ sendEmail: "yes" });
      expect(endDateTime).toBe(reminders.find((m) => m.email === emailId)!.newEnd);
    }
    // The same token again is refused; an hour's --older-than finds nobody left, here and in the CLI.
    expect(
      (await call(client, "remind_candidates", { ...args, planToken: plan.data.planToken })).result.isError,
    ).toBe(true);
    const replan = await call(client, "remind_candidates", { ...args, olderThanHours: 1 });
    expect(replan.data).toMatchObject({ toSend: 0, sentRecently: 2 });
    expect(replan.data.planToken).toBeUndefined();
    const again = await runCli(["invite", "remind", "--test", "1005", "--older-than", "1h", "--yes"], {
      env,
    });
    expect(again.stderr).toContain("0 to remind");
    expect(requestsSince(before, "POST", /\/invite$/)).toHaveLength(2);
  });

  it("--allow-writes offers every write tool, annotated, each schema compiling", async () => {
    const client = await connect("--allow-writes");
    const { tools } = await client.listTools();
    const writes = tools.filter((tool) => tool.annotations?.readOnlyHint === false).map((tool) => tool.name);
    expect(writes.sort()).toEqual(
      [
        "invite_candidate",
        "invite_through_link",
        "cancel_invitation",
        "reattempt_invitation",
        "invite_candidates",
        "remind_candidates",
        "create_test_link",
        "update_test_link",
        "set_test_link_status",
        "resend_callbacks",
        "upsert_employees",
        "set_employee_status",
        "create_user",
        "update_user",
        "set_user_status",
        "mask_candidate",
      ].sort(),
    );
    expect(tools).toHaveLength(READ_TOOLS.length + writes.length);
    const destructive = tools.filter((tool) => tool.annotations?.destructiveHint).map((tool) => tool.name);
    // Every write that may change or remove what exists (effect "overwrite"); the others only add.
    expect(destructive.sort()).toEqual(
      [
        "cancel_invitation",
        "reattempt_invitation",
        "remind_candidates",
        "update_test_link",
        "set_test_link_status",
        "upsert_employees",
        "set_employee_status",
        "update_user",
        "set_user_status",
        "mask_candidate",
      ].sort(),
    );
    const ajv = new Ajv2020({ strict: false });
    for (const tool of tools) expect(() => ajv.compile(tool.inputSchema), tool.name).not.toThrow();
  });

  it("an employees upsert: plan, confirmed run sent once, then nothing left to send", async () => {
    const client = await connect("--allow-writes", "employees");
    const employees = [
      {
        email: "mcp.emp1@example.com",
        firstName: "Emp",
        lastName: "One",
        employeeHRMSInfo: { externalEmployeeId: "MCP-1" },
      },
      {
        email: "mcp.emp2@example.com",
        firstName: "Emp",
        lastName: "Two",
        employeeHRMSInfo: { externalEmployeeId: "MCP-2" },
      },
    ];
    const before = lastSeq();
    const plan = await call(client, "upsert_employees", { employees });
    expect(plan.data).toMatchObject({ plan: true, rows: 2, toSend: 2 });
    const done = await call(client, "upsert_employees", { employees, planToken: plan.data.planToken });
    expect(done.data).toMatchObject({ done: true, sent: 2, failed: 0 });
    const sent = requestsSince(before, "POST", /^\/employees\/upsert$/);
    expect(sent.map((r) => r.body)).toEqual([employees]);
    expect((await call(client, "upsert_employees", { employees })).data).toMatchObject({
      toSend: 0,
      alreadyDone: 2,
    });
  });

  it("resend_callbacks: a plan of repeated ids, then one request for the rest", async () => {
    const client = await connect("--allow-writes", "callbacks");
    const to = `${new Date().toISOString().slice(0, 19)}Z`;
    const listed = await call(client, "list_attempts", { from: "60d", to, limit: 3 });
    const ids = (listed.data.items as Array<{ testInvitationId: number }>).map((a) => a.testInvitationId);
    expect(ids).toHaveLength(3);
    const before = lastSeq();
    const plan = await call(client, "resend_callbacks", { testInvitationIds: [...ids, ids[0]] });
    expect(plan.data).toMatchObject({ plan: true, rows: 4, toSend: 3, duplicates: 1 });
    const done = await call(client, "resend_callbacks", {
      testInvitationIds: [...ids, ids[0]],
      planToken: plan.data.planToken,
    });
    expect(done.data).toMatchObject({ done: true, sent: 3 });
    const sent = requestsSince(before, "POST", /^\/v3\/callbacks\/process$/);
    expect(sent.map((r) => r.body)).toEqual([{ testinvitationIds: ids }]);
  });

  it("a bulk plan names invalid rows and gives no token for them", async () => {
    const client = await connect("--allow-writes", "employees");
    const plan = await call(client, "upsert_employees", {
      employees: [
        { email: "emp.one@example.com", firstName: "One" },
        { email: "emp.one@example.com", firstName: "Other" },
      ],
    });
    expect(plan.data).toMatchObject({ invalid: 2, toSend: 0 });
    expect(plan.data.planToken).toBeUndefined();
    // Dates are read as a JSON file's items read them: not any text Date.parse takes.
    const dated = await call(client, "upsert_employees", {
      employees: [{ email: "emp.two@example.com", employeeHRMSInfo: { hireDate: "March 3, 2024" } }],
    });
    expect(dated.data).toMatchObject({
      invalid: 1,
      invalidRows: [
        { row: 0, reason: 'hireDate: "March 3, 2024" is not a date (use YYYY-MM-DD or ISO 8601)' },
      ],
    });
    const bad = await call(client, "upsert_employees", { employees: [{ email: "not-an-email" }] });
    expect(bad.result.isError).toBe(true);
    expect(bad.text).toContain("employees.0.email");
  });
});

describe("assess mcp against a hostile service", () => {
  it("refuses an answer too large for a model, scrubs the key the service echoes, and goes on", async () => {
    const hostile = createServer((req, res) => {
      res.setHeader("content-type", "application/json");
      if (req.url === "/v3/tests/1") {
        res.end(JSON.stringify({ testId: 1, blob: "x".repeat(2 * 1024 * 1024) }));
      } else if (req.url === "/v3/tests/2") {
        res.statusCode = 400;
        res.end(JSON.stringify({ result: null, errors: [`key ${String(req.headers["x-api-key"])} is odd`] }));
      } else res.end(JSON.stringify({ testId: 3 }));
    });
    await new Promise<void>((resolve) => hostile.listen(0, "127.0.0.1", resolve));
    try {
      const { port } = hostile.address() as AddressInfo;
      const client = await connectTo({ ...env, ASSESS_BASE_URL: `http://127.0.0.1:${port}` }, []);
      const large = await call(client, "get_test", { testId: 1 });
      expect(large.result.isError).toBe(true);
      expect(large.text).toMatch(/The answer of get_test is \d+ KB, more than the 1024 KB/);
      const echoed = await call(client, "get_test", { testId: 2 });
      expect(echoed.result.isError).toBe(true);
      expect(echoed.text).toContain(" is odd");
      expect(echoed.text).not.toContain(KEY);
      expect((await call(client, "get_test", { testId: 3 })).data).toEqual({ testId: 3 });
    } finally {
      hostile.close();
    }
  });
});

describe("assess mcp's command line", () => {
  it("refuses an unknown --allow-writes group and --dry-run before serving", async () => {
    const unknown = await runCli(["mcp", "--allow-writes", "invite,everything"], { env });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("unknown group(s) everything");
    const dry = await runCli(["--dry-run", "mcp"], { env });
    expect(dry.code).toBe(2);
    expect(dry.stderr).toContain("stdout carries the protocol");
  });

  it("without a key it still starts: tools/list works, and each call answers how to configure one", async () => {
    const { ASSESS_API_KEY: _key, ...keyless } = env;
    const stderr: string[] = [];
    const client = await connectMcp(keyless, ["--allow-writes"], stderr);
    open.push(client);
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toContain("list_tests");
    const before = lastSeq();
    for (const [name, args] of [
      ["list_tests", {}],
      ["list_attempts", { from: "7d", to: "now" }],
      ["invite_candidates", { testId: 1001, candidates: [{ email: "a@example.com", name: "A" }] }],
    ] as const) {
      const answer = await call(client, name, args);
      expect(answer.result.isError, name).toBe(true);
      expect(answer.text, name).toMatch(/^No API key is configured for assess mcp; nothing was sent/);
      expect((answer.data.error as { hint: string }).hint, name).toContain("assess auth login");
    }
    // Arguments are still checked first: the model learns of its own mistakes too.
    const bad = await call(client, "get_test", { testId: "abc" });
    expect(bad.text).toMatch(/^Invalid arguments for get_test/);
    expect(sandbox.requests.filter((r) => r.seq > before)).toEqual([]);
    expect(stderr.join("")).toContain("No API key is configured for assess mcp: every tool call answers so");
  });
});

describe("assess mcp on raw stdio", () => {
  it("survives a line that is not JSON, and answers a call sent just before stdin ends", async () => {
    const lines = [
      "this is not JSON",
      {
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: {
          protocolVersion: "2025-06-18",
          capabilities: {},
          clientInfo: { name: "raw", version: "1" },
        },
      },
      { jsonrpc: "2.0", method: "notifications/initialized" },
      {
        jsonrpc: "2.0",
        id: 2,
        method: "tools/call",
        params: { name: "get_test", arguments: { testId: 1001 } },
      },
    ].map((line) => (typeof line === "string" ? line : JSON.stringify(line)));
    // Not spawnSync: the sandbox answers from this process's event loop.
    const r = await spawnWith([BIN, "mcp"], `${lines.join("\n")}\n`);
    transcript.push(r.stdout, r.stderr);
    expect(r.status, r.stderr).toBe(0);
    const answers = r.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { id: number; result: CallToolResult });
    // The line that is not JSON is answered with JSON-RPC's parse error (id null), then dropped.
    expect(answers.map((answer) => answer.id)).toEqual([null, 1, 2]);
    expect(answers[2]!.result.structuredContent).toMatchObject({ testId: 1001 });
    expect(r.stderr).toMatch(/warning: mcp: .*JSON/);
  });
});

/** A raw JSON-RPC line. */
const rpc = (message: Record<string, unknown>) => JSON.stringify({ jsonrpc: "2.0", ...message });
const INITIALIZE = [
  rpc({
    id: 1,
    method: "initialize",
    params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
  }),
  rpc({ method: "notifications/initialized" }),
];

describe("assess mcp on raw stdio, against every input", () => {
  it("answers a 5 MiB line, a line that is not JSON and one that is not JSON-RPC with JSON-RPC errors, drops them, and serves the next call", async () => {
    const huge = rpc({
      id: 9,
      method: "tools/call",
      params: { name: "get_test", arguments: { testId: 1001, padding: "x".repeat(5 * 1024 * 1024) } },
    });
    const next = rpc({
      id: 2,
      method: "tools/call",
      params: { name: "get_test", arguments: { testId: 1001 } },
    });
    const r = await spawnWith(
      [BIN, "mcp"],
      `${[...INITIALIZE, huge, "{not json", '{"jsonrpc":"1.0"}', next].join("\n")}\n`,
    );
    transcript.push(r.stdout.slice(0, 10_000), r.stderr);
    expect(r.status, r.stderr).toBe(0);
    const answers = r.stdout
      .trim()
      .split("\n")
      .map(
        (line) =>
          JSON.parse(line) as {
            id: number | null;
            result?: CallToolResult;
            error?: { code: number; message: string };
          },
      );
    // A line that is not JSON, and one that is not JSON-RPC, are answered too (JSON-RPC's -32700 and -32600).
    expect(answers.map((answer) => answer.id)).toEqual([1, null, null, null, 2]);
    expect(answers[1]!.error).toMatchObject({
      code: -32600,
      message: expect.stringMatching(/longer than 4 MiB was dropped/),
    });
    expect(answers[2]!.error).toMatchObject({ code: -32700, message: expect.stringMatching(/not JSON/) });
    expect(answers[3]!.error).toMatchObject({ code: -32600, message: expect.stringMatching(/not JSON-RPC/) });
    expect(answers[4]!.result!.structuredContent).toMatchObject({ testId: 1001 });
    expect(r.stderr).toMatch(/warning: mcp: A message longer than 4 MiB/);
  }, 30_000);

  it("exits 0 when the client closes its input, with nothing sent on it", async () => {
    const r = await spawnWith([BIN, "mcp"], "");
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toBe("");
  });

  it("exits 1 when its input fails", async () => {
    const stdout = capture();
    const stderr = capture();
    const stdin = new Readable({ read() {} });
    const done = main(
      ["mcp"],
      { stdout: stdout.stream, stderr: stderr.stream, stdin, env },
      { signal: new AbortController().signal },
    );
    stdin.push(`${INITIALIZE.join("\n")}\n`);
    // Once the server answered initialize: it is reading.
    stdout.stream.once("data", () => stdin.destroy(new Error("read EIO")));
    expect(await done).toBe(1);
    expect(stderr.text()).toMatch(/assess mcp: read EIO; the server stopped/);
  }, 30_000);
  it("answers a client that reads slowly without piling up a listener per waiting answer", async () => {
    // A stdout that takes nothing until released: every answer after the first waits.
    const held: Array<() => void> = [];
    let written = 0;
    const stdout = new Writable({
      highWaterMark: 1,
      write(_chunk, _encoding, callback) {
        written++;
        held.push(callback);
      },
    });
    const stdin = new Readable({ read() {} });
    const stderr = capture();
    const done = main(
      ["mcp"],
      { stdout, stderr: stderr.stream, stdin, env },
      { signal: new AbortController().signal },
    );
    const pings = Array.from({ length: 20 }, (_, i) => rpc({ id: 100 + i, method: "ping" }));
    stdin.push(`${[...INITIALIZE, ...pings].join("\n")}\n`);
    // The initialize answer is being written; the 20 answers wait behind it.
    while (stdout.writableLength === 0 || written === 0)
      await new Promise((resolve) => setImmediate(resolve));
    await expect.poll(() => stdout.writableLength > 20 * 30).toBe(true);
    expect(stdout.listenerCount("drain")).toBeLessThanOrEqual(1);
    const release = () => {
      for (const callback of held.splice(0)) callback();
    };
    const releasing = setInterval(release, 1);
    stdin.push(null);
    expect(await done).toBe(0);
    // Every answer was written once the client read them.
    await expect.poll(() => written).toBe(21);
    clearInterval(releasing);
    expect(stderr.text()).not.toMatch(/MaxListeners/);
  }, 30_000);

  it("exits 1 when its output fails, though its input stays open", async () => {
    const child = stopWhenTestEnds(spawn(process.execPath, [BIN, "mcp"], { env }));
    const err: Buffer[] = [];
    child.stderr.on("data", (chunk: Buffer) => err.push(chunk));
    // The client stops reading (its end of stdout closed) but never closes the server's stdin.
    child.stdout.destroy();
    child.stdin.write(`${INITIALIZE.join("\n")}\n`);
    const pings = Array.from({ length: 20 }, (_, i) =>
      JSON.stringify({ jsonrpc: "2.0", id: 100 + i, method: "ping" }),
    );
    child.stdin.write(`${pings.join("\n")}\n`);
    const status = await new Promise((resolve) => child.on("exit", resolve));
    expect(status, Buffer.concat(err).toString("utf8")).toBe(1);
    expect(Buffer.concat(err).toString("utf8")).toMatch(/assess mcp: write EPIPE; the server stopped/);
  }, 30_000);
});

describe("the key", () => {
  it("is in no byte of any conversation, nor of the servers' stderr", () => {
    const all = transcript.join("\n");
    expect(all.length).toBeGreaterThan(10_000);
    expect(all).toContain("bulk.a@example.com");
    expect(all).not.toContain(KEY);
  });
});
