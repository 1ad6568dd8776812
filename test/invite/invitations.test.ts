import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useTestEnv } from "../helpers/cli.js";

const t = useTestEnv();

const lastRequest = () => t.sandbox.requests.at(-1)!;

describe("invite send", () => {
  it("posts §2.4's fields, quirks included, and prints the invitation", async () => {
    const r = await t.run([
      "invite",
      "send",
      "--test",
      "1001",
      "--email",
      "ada@example.com",
      "--name",
      "Ada Lovelace",
      "--callback-url",
      "https://hooks.example.com/done",
      "--redirect-url",
      "https://example.com/thanks",
      "--send-email",
      "--start",
      "2030-01-01",
      "--end",
      "2030-01-31",
      "--timezone",
      "1720",
      "--proctoring",
      "image",
      "--hide-instruction",
      "--stakeholders",
      "hr@example.com",
      "--json",
    ]);
    expect(r.code).toBe(0);
    expect(r.json()).toMatchObject({
      testInvitationId: expect.any(Number),
      testUrl: expect.stringContaining("http"),
    });
    expect(lastRequest()).toMatchObject({
      method: "POST",
      path: "/v3/tests/1001/invite",
      body: {
        emailId: "ada@example.com",
        fullName: "Ada Lovelace",
        callbackURL: "https://hooks.example.com/done",
        redirectURL: "https://example.com/thanks",
        sendEmail: "yes",
        startDateTime: "2030-01-01T00:00:00Z",
        endDateTime: "2030-01-31T23:59:59Z",
        timeZoneId: 1720,
        ProctoringMode: "image",
        hideInstruction: 1,
        stakeholderEmails: "hr@example.com",
      },
    });
    expect(lastRequest().headers["content-type"]).toContain("application/json");
  });

  it("--stakeholders: e-mails checked before anything is sent; `disable` in any case is sent as disable", async () => {
    const base = ["invite", "send", "--test", "1001", "--email", "s@example.com", "--name", "S"];
    const before = t.sandbox.requests.length;
    const bad = await t.run([...base, "--stakeholders", "hr@example.com,nobody"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('error: --stakeholders: "nobody" is not a valid e-mail address\n');
    expect(bad.stderr).toContain("or disable");
    expect(t.sandbox.requests.length).toBe(before);
    const off = await t.run([...base, "--stakeholders", "Disable", "--json"]);
    expect(off.code, off.stderr).toBe(0);
    expect(lastRequest().body).toMatchObject({ stakeholderEmails: "disable" });
  });

  it("--anonymous sends disableMandatoryFields=1 without e-mail or name", async () => {
    const r = await t.run(["invite", "send", "--test", "1001", "--anonymous", "--json"]);
    expect(r.code).toBe(0);
    expect(lastRequest().body).toEqual({ disableMandatoryFields: 1 });
  });

  it("lists every missing value when prompts are off, and sends nothing", async () => {
    const before = t.sandbox.requests.length;
    const r = await t.run(["invite", "send", "--test", "1001"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("Missing --email, --name");
    // A missing --test is listed with the others (CLI.md: "lists every missing value"), in send and link.
    const noTest = await t.run(["invite", "send", "--email", "a@example.com"]);
    expect(noTest.code).toBe(2);
    expect(noTest.stderr).toContain("error: Missing --test <testId>, --name\n");
    const link = await t.run(["invite", "link", "--name", "A"]);
    expect(link.code).toBe(2);
    expect(link.stderr).toContain("error: Missing --test <testId>, --link, --email\n");
    expect(t.sandbox.requests.length).toBe(before);
  });

  it("--dry-run prints the request with the key redacted and sends nothing", async () => {
    const before = t.sandbox.requests.length;
    const r = await t.run([
      "invite",
      "send",
      "--test",
      "1001",
      "--email",
      "x@example.com",
      "--name",
      "X",
      "--dry-run",
    ]);
    expect(r.code).toBe(0);
    expect(t.sandbox.requests.length).toBe(before);
    const printed = r.json<{ method: string; url: string; headers: Record<string, string>; body: unknown }>();
    expect(printed).toMatchObject({ method: "POST", body: { emailId: "x@example.com", fullName: "X" } });
    expect(printed.url).toMatch(/\/api\/v3\/tests\/1001\/invite$/);
    expect(r.stdout + r.stderr).not.toContain(t.env.ASSESS_API_KEY);
  });

  it("another account's test → exit 4", async () => {
    const r = await t.run(["invite", "send", "--test", "2001", "--email", "x@example.com", "--name", "X"]);
    expect(r.code).toBe(4);
    expect(r.stderr).toContain("You do not have permission to access resource");
  });
});

describe("invite cancel and reattempt", () => {
  it("cancels a pending invitation, then refuses a second cancel with the service's message", async () => {
    const sent = await t.run([
      "invite",
      "send",
      "--test",
      "1002",
      "--email",
      "cancel.me@example.com",
      "--name",
      "C",
      "--json",
    ]);
    const id = sent.json<{ testInvitationId: number }>().testInvitationId;
    const r = await t.run(["invite", "cancel", String(id), "--json"]);
    expect(r.code).toBe(0);
    expect(lastRequest()).toMatchObject({ method: "POST", path: `/v3/invitations/${id}/cancel` });
    expect(r.json()).toMatchObject({ testInvitationId: id, status: "cancelled" });
    const again = await t.run(["invite", "cancel", String(id)]);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/pending/i);
  });

  it("reattempt sends §2.5's capitalised fields", async () => {
    const sent = await t.run([
      "invite",
      "send",
      "--test",
      "1002",
      "--email",
      "again@example.com",
      "--name",
      "A",
      "--json",
    ]);
    const id = sent.json<{ testInvitationId: number }>().testInvitationId;
    await t.sandbox.completeAttempt(id, "Complete");
    const r = await t.run([
      "invite",
      "reattempt",
      String(id),
      "--start",
      "2030-02-01T10:00:00+02:00",
      "--end",
      "2030-02-03",
      "--timezone",
      "1720",
      "--callback-url",
      "https://hooks.example.com/x",
      "--redirect-url",
      "https://example.com/y",
      "--hide-instruction",
      "--json",
    ]);
    expect(r.code).toBe(0);
    expect(lastRequest()).toMatchObject({
      path: `/v3/invitations/${id}/reattempt`,
      body: {
        StartDateTime: "2030-02-01T08:00:00Z",
        EndDateTime: "2030-02-03T23:59:59Z",
        TimeZoneId: 1720,
        CallbackUrl: "https://hooks.example.com/x",
        RedirectUrl: "https://example.com/y",
        hideInstruction: 1,
      },
    });
    expect(r.json()).toHaveProperty("testInvitationId");
  });

  it("an end before the start is a usage error", async () => {
    const r = await t.run(["invite", "reattempt", "5", "--start", "2030-02-03", "--end", "2030-02-01"]);
    expect(r.code).toBe(2);
  });
});

describe("invite link", () => {
  it("invites through a test link with §2.6's fields (sendEmail as an integer)", async () => {
    const links = (await t.run(["api", "GET", "/v3/tests/1001/testlinks"])).json<{
      testLinks: Array<{ testLinkId: number; testLinkStatus: string }>;
    }>();
    const link = links.testLinks.find((l) => l.testLinkStatus === "active")!;
    const r = await t.run([
      "invite",
      "link",
      "--test",
      "1001",
      "--link",
      String(link.testLinkId),
      "--email",
      "linked@example.com",
      "--name",
      "Linked",
      "--send-email",
      "--json",
    ]);
    expect(r.code).toBe(0);
    expect(lastRequest()).toMatchObject({
      path: `/v3/tests/1001/testlinks/${link.testLinkId}/invite`,
      body: { emailId: "linked@example.com", fullName: "Linked", sendEmail: 1 },
    });
    expect(r.json()).toHaveProperty("testInvitationId");
  });
});

describe("reports", () => {
  const completed = async () => {
    const sent = await t.run([
      "invite",
      "send",
      "--test",
      "1003",
      "--email",
      "report.me@example.com",
      "--name",
      "R",
      "--json",
    ]);
    const id = sent.json<{ testInvitationId: number }>().testInvitationId;
    await t.sandbox.completeAttempt(id, "Complete");
    return id;
  };

  it("get prints the report with its mixed-case fields", async () => {
    const id = await completed();
    const r = await t.run(["reports", "get", String(id), "--json"]);
    expect(r.code).toBe(0);
    expect(r.json()).toMatchObject({ testInvitationId: id, Status: expect.any(String) });
    expect(lastRequest()).toMatchObject({ method: "GET", path: `/v3/reports/${id}` });
  });

  it("pdf saves the bytes to a file and never to a terminal", async () => {
    const id = await completed();
    const out = join(t.configDir, `r-${id}.pdf`);
    const r = await t.run(["reports", "pdf", String(id), "--out", out]);
    expect(r.code).toBe(0);
    expect(readFileSync(out).subarray(0, 5).toString()).toBe("%PDF-");
    const again = await t.run(["reports", "pdf", String(id), "--out", out]);
    expect(again.code).toBe(2);
    const tty = await t.run(["reports", "pdf", String(id), "--out", "-"], { tty: true });
    expect(tty.code).toBe(2);
    expect(tty.stdout).toBe("");
    expect(existsSync(join(process.cwd(), `report-${id}.pdf`))).toBe(false);
  });

  it("pdf --out - writes the bytes to a piped stdout", async () => {
    const id = await completed();
    const r = await t.run(["reports", "pdf", String(id), "--out", "-"]);
    expect(r.code).toBe(0);
    expect(r.stdout.startsWith("%PDF-")).toBe(true);
  });
});
