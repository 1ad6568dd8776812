import { describe, expect, it } from "vitest";
import { useTestEnv } from "../helpers/cli.js";
import { Terminal } from "../helpers/terminal.js";

const t = useTestEnv();

const lastRequest = () => t.sandbox.requests.at(-1)!;

describe("users", () => {
  it("create sends email, fullName and businessunitId", async () => {
    const r = await t.run([
      "users",
      "create",
      "--email",
      "grace@example.com",
      "--name",
      "Grace Hopper",
      "--business-unit",
      "11",
      "--json",
    ]);
    expect(r.code).toBe(0);
    expect(lastRequest()).toMatchObject({
      method: "POST",
      path: "/v3/accounts/user/create",
      body: { email: "grace@example.com", fullName: "Grace Hopper", businessunitId: 11 },
    });
    expect(r.json()).toMatchObject({ email: "grace@example.com", fullName: "Grace Hopper" });
  });

  // Checked locally, as a candidate's e-mail is (it was the service's 400 and exit 1).
  it("create with a bad e-mail is a usage error: exit 2, nothing sent", async () => {
    const before = t.sandbox.requests.length;
    const r = await t.run(["users", "create", "--email", "not-an-email", "--name", "X"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--email: "not-an-email" is not a valid e-mail address');
    expect(t.sandbox.requests.length).toBe(before);
  });

  it("a bad --email of every users verb names the address and hints at the user's", async () => {
    const before = t.sandbox.requests.length;
    for (const verb of [["create", "--name", "X"], ["update", "--business-unit", "11"], ["deactivate"]]) {
      const r = await t.run(["users", ...verb, "--email", "x@"]);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('--email: "x@" is not a valid e-mail address');
      expect(r.stderr).toContain("Give the user's address, like grace@example.com.");
    }
    expect(t.sandbox.requests.length).toBe(before);
  });

  it("create of an existing user surfaces the service's message", async () => {
    await t.run(["users", "create", "--email", "dup@example.com", "--name", "Dup"]);
    const r = await t.run(["users", "create", "--email", "dup@example.com", "--name", "Dup"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("The user is already exists");
  });

  it("update sends Email and BusinessunitId", async () => {
    await t.run(["users", "create", "--email", "move@example.com", "--name", "Mover"]);
    const r = await t.run([
      "users",
      "update",
      "--email",
      "move@example.com",
      "--business-unit",
      "12",
      "--json",
    ]);
    expect(r.code).toBe(0);
    expect(lastRequest()).toMatchObject({
      path: "/v3/accounts/user/update",
      body: { Email: "move@example.com", BusinessunitId: 12 },
    });
    const bad = await t.run(["users", "update", "--email", "move@example.com", "--business-unit", "999"]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain(
      "The provided BusinessUnitId is invalid or not associated with your account.",
    );
  });

  it("deactivate and activate send the case-sensitive status", async () => {
    await t.run(["users", "create", "--email", "toggle@example.com", "--name", "Toggle"]);
    const off = await t.run(["users", "deactivate", "--email", "toggle@example.com", "--json"]);
    expect(off.code).toBe(0);
    expect(lastRequest()).toMatchObject({
      path: "/v3/accounts/user/status",
      body: { email: "toggle@example.com", status: "Inactive" },
    });
    expect(off.json()).toMatchObject({ status: "Inactive" });
    const on = await t.run(["users", "activate", "--email", "toggle@example.com", "--json"]);
    expect(on.json()).toMatchObject({ status: "Active" });
  });
});

describe("gdpr mask", () => {
  it("without --yes and without prompts is a usage error; nothing is sent", async () => {
    const before = t.sandbox.requests.length;
    const r = await t.run(["gdpr", "mask", "--email", "ada@example.com"], { env: { CI: "true" } });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("--yes");
    expect(t.sandbox.requests.length).toBe(before);
  });

  it("on a terminal, answering no masks nothing and exits 0 (not 130, which is Ctrl-C)", async () => {
    const before = t.sandbox.requests.length;
    const term = Terminal.start(["gdpr", "mask", "--email", "ada@example.com"], t.env);
    try {
      await term.answer("This cannot be undone.", "n");
      expect(await term.exited).toBe(0);
      expect(term.screen).toContain("Nothing changed: you answered no");
    } finally {
      await term.close();
    }
    expect(t.sandbox.requests.length).toBe(before);
  });

  it("with --yes sends CandidateEmail and testinvitationId", async () => {
    const sent = await t.run([
      "invite",
      "send",
      "--test",
      "1001",
      "--email",
      "forget.me@example.com",
      "--name",
      "F",
      "--json",
    ]);
    const id = sent.json<{ testInvitationId: number }>().testInvitationId;
    const r = await t.run([
      "gdpr",
      "mask",
      "--email",
      "forget.me@example.com",
      "--invitation",
      String(id),
      "--yes",
      "--json",
    ]);
    expect(r.code).toBe(0);
    expect(lastRequest()).toMatchObject({
      path: "/v3/gdpr/requests",
      body: { CandidateEmail: "forget.me@example.com", testinvitationId: id },
    });
    expect(r.json()).toMatchObject({ result: "Request accepted for processing" });
  });

  it("an e-mail with no records surfaces the service's 400, exit 1", async () => {
    const r = await t.run(["gdpr", "mask", "--email", "nobody@example.com", "--yes"]);
    expect(r.code).toBe(1);
  });
});

describe("api (raw requests)", () => {
  it("GET with typed fields as query parameters", async () => {
    const r = await t.run(["api", "GET", "/v3/tests", "-f", "pageNo=1", "-f", "pageSize=2"]);
    expect(r.code).toBe(0);
    expect(r.json<{ tests: unknown[] }>().tests).toHaveLength(2);
    expect(lastRequest().query).toEqual({ pageNo: "1", pageSize: "2" });
  });

  it("POST with --data and -i shows the status", async () => {
    const r = await t.run([
      "api",
      "POST",
      "/v3/tests/1001/invite",
      "--data",
      '{"emailId":"raw@example.com","fullName":"Raw"}',
      "-i",
    ]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^HTTP 20[01]\n/);
    expect(lastRequest().body).toEqual({ emailId: "raw@example.com", fullName: "Raw" });
  });

  it("--dry-run prints any request, GET included, and sends nothing", async () => {
    const before = t.sandbox.requests.length;
    const r = await t.run(["api", "GET", "/employees", "--skills", "-f", "PageSize=5", "--dry-run"]);
    expect(r.code).toBe(0);
    expect(r.json()).toMatchObject({
      dryRun: true,
      method: "GET",
      url: expect.stringContaining("/skills/employees?PageSize=5"),
    });
    expect(t.sandbox.requests.length).toBe(before);
  });

  it.each(["-", "@-"])("reads the body from stdin with --data %s (curl's @- too)", async (data) => {
    const email = `stdin${data.length}@example.com`;
    const r = await t.run(["api", "POST", "/v3/accounts/user/create", "--data", data], {
      stdin: JSON.stringify({ email, fullName: "From Stdin" }),
    });
    expect(r.code, r.stderr).toBe(0);
    expect(lastRequest().body).toEqual({ email, fullName: "From Stdin" });
  });

  it("--skills --paginate follows every page of a skills list", async () => {
    const r = await t.run(["api", "GET", "/employees", "--skills", "--paginate", "-f", "PageSize=20"]);
    expect(r.code).toBe(0);
    expect(r.json<unknown[]>().length).toBeGreaterThan(40);
  });
});
