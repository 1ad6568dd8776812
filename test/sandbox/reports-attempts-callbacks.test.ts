import { describe, expect, it } from "vitest";
import { ACME, GLOBEX, start, useSandbox } from "./helpers.js";

const { sb, c } = useSandbox();
/** The same seed answering in the API's documented shapes (`teststatus`, numeric ids in a 401). */
const { c: l } = useSandbox({ shapes: "api-md" });

const finishedAcme = () => sb.state.invitations.filter((i) => i.accountId === "acme" && i.completedAt);

describe("seed data", () => {
  it("holds about 300 finished attempts over the 180 days before now, and is deterministic", async () => {
    const finished = finishedAcme();
    expect(finished.length).toBe(300);
    const statuses = new Set(finished.map((i) => i.status));
    expect(statuses).toEqual(new Set(["Complete", "TestLeft", "Terminated"]));
    const other = await start();
    try {
      expect(
        other.state.invitations.slice(0, 50).map((i) => [i.testInvitationId, i.email, i.status]),
      ).toEqual(sb.state.invitations.slice(0, 50).map((i) => [i.testInvitationId, i.email, i.status]));
    } finally {
      await other.close();
    }
  });
});

describe("reports", () => {
  it("answers the report shape with mixed-case fields", async () => {
    const inv = finishedAcme().find((i) => i.status === "Complete")!;
    const a = await c.api("GET", `/v3/reports/${inv.testInvitationId}`);
    expect(a.status).toBe(200);
    expect(a.json).toMatchObject({
      testInvitationId: inv.testInvitationId,
      testId: inv.testId,
      candidateEmail: inv.email,
      candidateName: inv.name,
      Status: "Complete",
      pdfReportUrl: `${sb.url}/v3/reports/${inv.testInvitationId}/pdf`,
    });
    for (const key of [
      "attemptedOn",
      "scorePercentage",
      "candidatePoints",
      "totalTestPoints",
      "testName",
      "PerformanceCategory",
      "timeTaken",
    ]) {
      expect(a.json, key).toHaveProperty(key);
    }
    expect(a.json.sections.length).toBeGreaterThanOrEqual(2);
    expect(a.json.sections.length).toBeLessThanOrEqual(4);
    expect(Object.keys(a.json.sections[0]).sort()).toEqual(
      [
        "sectionId",
        "sectionName",
        "candidateScore",
        "sectionScore",
        "noOfQue",
        "sectionTime",
        "sectionTimeTaken",
      ].sort(),
    );
    const bySkill = await c.api("GET", `/v3/reports/${inv.testInvitationId}?reportType=3`);
    expect(bySkill.json.skills.length).toBeGreaterThan(0);
    const badType = await c.api("GET", `/v3/reports/${inv.testInvitationId}?reportType=7`);
    expect(badType.status).toBe(400);
  });

  it("refuses a report before completion and serves a PDF after", async () => {
    const pending = sb.state.invitations.find((i) => i.accountId === "acme" && i.status === "Pending")!;
    const a = await c.api("GET", `/v3/reports/${pending.testInvitationId}`);
    expect(a.status).toBe(400);
    expect(a.json).toEqual({
      statusCode: 400,
      message: "Report is not available until the test is completed",
    });
    const pdfEarly = await c.api("GET", `/v3/reports/${pending.testInvitationId}/pdf`);
    expect(pdfEarly.status).toBe(400);

    const inv = finishedAcme()[0]!;
    const res = await fetch(`${sb.url}/v3/reports/${inv.testInvitationId}/pdf`, {
      headers: { "x-api-key": ACME },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/pdf");
    const bytes = Buffer.from(await res.arrayBuffer());
    const text = bytes.toString("latin1");
    expect(text.startsWith("%PDF-1.4")).toBe(true);
    expect(text.trimEnd().endsWith("%%EOF")).toBe(true);
    expect(text).toContain(inv.name.replace(/[()\\]/g, ""));
    expect(text).toContain(`${inv.result!.candidateScore} / ${inv.result!.totalScore}`);
    // The xref offset points at the xref table.
    const startxref = Number(/startxref\n(\d+)/.exec(text)![1]);
    expect(text.slice(startxref, startxref + 4)).toBe("xref");
  });

  it("hides another account's invitation", async () => {
    const inv = sb.state.invitations.find((i) => i.accountId === "globex" && i.completedAt)!;
    const a = await c.api("GET", `/v3/reports/${inv.testInvitationId}`);
    expect(a.status).toBe(404);
    const own = await c.api("GET", `/v3/reports/${inv.testInvitationId}`, { key: GLOBEX });
    expect(own.status).toBe(200);
  });
});

describe("POST /v3/candidates/testattempts?state=completed", () => {
  const list = (body: unknown, state = "completed") =>
    c.api("POST", `/v3/candidates/testattempts?state=${state}`, { body });

  it("lists them as the real service does: testStatus, Completed", async () => {
    const a = await list({ StartDateTime: "2025-05-20T00:00:00Z", EndDateTime: "2025-06-15T12:00:00Z" });
    const records = a.json.result.testAttempts;
    expect(Object.keys(records[0]).sort()).toEqual(
      ["testInvitationId", "extEmployeeId", "testId", "name", "email", "invitationtype", "testStatus"].sort(),
    );
    const statuses = new Set(records.map((r: { testStatus: string }) => r.testStatus));
    expect(statuses).toEqual(new Set(["Completed", "TestLeft", "Terminated"]));
  });

  it("lists the finished attempts of the window in the documented attempt records (literal shapes)", async () => {
    const list = (body: unknown) => l.api("POST", "/v3/candidates/testattempts?state=completed", { body });
    const a = await list({ StartDateTime: "2025-05-20T00:00:00Z", EndDateTime: "2025-06-15T12:00:00Z" });
    expect(a.status).toBe(200);
    expect(a.json.errors).toBeNull();
    const records = a.json.result.testAttempts;
    const expected = finishedAcme().filter(
      (i) => i.completedAt! >= "2025-05-20T00:00:00Z" && i.completedAt! <= "2025-06-15T12:00:00Z",
    );
    expect(records.length).toBe(expected.length);
    expect(records.length).toBeGreaterThan(10);
    expect(Object.keys(records[0]).sort()).toEqual(
      ["testInvitationId", "extEmployeeId", "testId", "name", "email", "invitationtype", "teststatus"].sort(),
    );
    expect(records[0].invitationtype).toBe("app");
    for (const r of records) expect(["Complete", "TestLeft", "Terminated"]).toContain(r.teststatus);
    // Without the trailing Z and with fractions too.
    const loose = await list({
      StartDateTime: "2025-05-20T00:00:00.000",
      EndDateTime: "2025-06-15T12:00:00",
    });
    expect(loose.json.result.testAttempts.length).toBe(records.length);
  });

  it("shows invitations made through the API as invitationtype api", async () => {
    const inv = await c.api("POST", "/v3/tests/1004/invite", {
      body: { emailId: "api.made@example.com", fullName: "Api Made" },
    });
    await sb.completeAttempt(inv.json.testInvitationId, "Terminated");
    const a = await list({ StartDateTime: "2025-06-15T00:00:00Z", EndDateTime: "2025-06-15T12:00:00Z" });
    const rec = a.json.result.testAttempts.find(
      (r: { testInvitationId: number }) => r.testInvitationId === inv.json.testInvitationId,
    );
    expect(rec).toEqual({
      testInvitationId: inv.json.testInvitationId,
      extEmployeeId: null,
      testId: 1004,
      name: "Api Made",
      email: "api.made@example.com",
      invitationtype: "api",
      testStatus: "Terminated",
    });
  });

  it("refuses a span over 30 days, bad dates and another state", async () => {
    const far = await list({ StartDateTime: "2025-05-01T00:00:00Z", EndDateTime: "2025-06-01T00:00:01Z" });
    expect(far.status).toBe(400);
    expect(far.json).toEqual({
      result: null,
      errors: ["The time range between StartDateTime and EndDateTime must not exceed 30 days"],
    });
    const exactly30 = await list({
      StartDateTime: "2025-05-01T00:00:00Z",
      EndDateTime: "2025-05-31T00:00:00Z",
    });
    expect(exactly30.status).toBe(200);
    const reversed = await list({
      StartDateTime: "2025-05-10T00:00:00Z",
      EndDateTime: "2025-05-01T00:00:00Z",
    });
    expect(reversed.status).toBe(400);
    expect(reversed.json.result).toBeNull();
    const missing = await list({ StartDateTime: "2025-05-10T00:00:00Z" });
    expect(missing.json).toEqual({ result: null, errors: ["EndDateTime is required"] });
    const state = await list(
      { StartDateTime: "2025-05-01T00:00:00Z", EndDateTime: "2025-05-02T00:00:00Z" },
      "pending",
    );
    expect(state.status).toBe(400);
  });
});

describe("POST /v3/callbacks/process", () => {
  it("answers 401 naming every offending id and queues nothing", async () => {
    const own = finishedAcme()[0]!.testInvitationId;
    const foreign = sb.state.invitations.find((i) => i.accountId === "globex")!.testInvitationId;
    const a = await c.api("POST", "/v3/callbacks/process", {
      body: { testinvitationIds: [own, 42, foreign] },
    });
    expect(a.status).toBe(401);
    // As the real service names them: strings (fixtures/real/callbacks/process-401.json).
    expect(a.json).toEqual({ result: null, errors: ["Invalid testinvitationIds", "42", String(foreign)] });
    const b = await l.api("POST", "/v3/callbacks/process", {
      body: { testinvitationIds: [own, 42, foreign] },
    });
    expect(b.json).toEqual({ result: null, errors: ["Invalid testinvitationIds", 42, foreign] });
  });

  it("splits ids into successful (callback URL and finished) and failed", async () => {
    const seeded = finishedAcme()[0]!.testInvitationId; // no callback URL
    const a = await c.api("POST", "/v3/callbacks/process", { body: { testinvitationIds: [seeded] } });
    expect(a.status).toBe(200);
    expect(a.json).toEqual({
      result: { testinvitationIds: { successful: [], failed: [seeded] } },
      errors: null,
    });
  });

  it("refuses more than 100 ids and a missing list", async () => {
    const ids = finishedAcme()
      .slice(0, 101)
      .map((i) => i.testInvitationId);
    const a = await c.api("POST", "/v3/callbacks/process", { body: { testinvitationIds: ids } });
    expect(a.status).toBe(400);
    expect(a.json).toEqual({ result: null, errors: ["A maximum of 100 records can be processed per call"] });
    const none = await c.api("POST", "/v3/callbacks/process", { body: {} });
    expect(none.status).toBe(400);
    expect(none.json.result).toBeNull();
  });
});
