import { describe, expect, it } from "vitest";
import { candidates, useSandbox } from "./helpers.js";

const { sb, c } = useSandbox();

const invite = (body: unknown, testId = 1001) => c.api("POST", `/v3/tests/${testId}/invite`, { body });

describe("POST /v3/tests/{testId}/invite", () => {
  it("answers 201 with the invitation id and test URL", async () => {
    const a = await invite({
      emailId: "new.person@example.com",
      fullName: "New Person",
      callbackURL: "http://127.0.0.1:9/hook",
      sendEmail: "no",
      startDateTime: "2025-06-16T09:00:00Z",
      endDateTime: "2025-06-30T17:00:00Z",
      timeZoneId: 1720,
      ProctoringMode: "image",
      hideInstruction: 1,
      stakeholderEmails: "disable",
    });
    expect(a.status).toBe(201);
    expect(Object.keys(a.json).sort()).toEqual(["testInvitationId", "testUrl"]);
    expect(a.json.testUrl).toMatch(/^https:\/\/sandbox\.assess\.invalid\/t\/[0-9a-f]{32}$/);
    const stored = sb.state.invitations.find((i) => i.testInvitationId === a.json.testInvitationId)!;
    expect(stored).toMatchObject({
      status: "Pending",
      invitationType: "api",
      proctoringMode: "image",
      timeZoneId: 1720,
    });
  });

  it("re-inviting a Pending, Cancelled or Expired invitation returns the same id reset to Pending", async () => {
    const first = await invite({ emailId: "Again@Example.com", fullName: "Again" });
    const second = await invite({ emailId: "again@example.com", fullName: "Again Two" });
    expect(second.json.testInvitationId).toBe(first.json.testInvitationId);
    await c.api("POST", `/v3/invitations/${first.json.testInvitationId}/cancel`);
    const third = await invite({ emailId: "again@example.com", fullName: "Again" });
    expect(third.json.testInvitationId).toBe(first.json.testInvitationId);
    expect(sb.state.invitations.find((i) => i.testInvitationId === first.json.testInvitationId)!.status).toBe(
      "Pending",
    );
    // An invitation whose window is over is Expired, and a re-invite revives it too.
    const old = await invite({
      emailId: "late@example.com",
      fullName: "Late",
      startDateTime: "2025-01-01T00:00:00Z",
      endDateTime: "2025-01-02T00:00:00Z",
    });
    const again = await invite({ emailId: "late@example.com", fullName: "Late" });
    expect(again.json.testInvitationId).toBe(old.json.testInvitationId);
  });

  it("gives a completed candidate a new invitation", async () => {
    const first = await invite({ emailId: "done@example.com", fullName: "Done" });
    await sb.completeAttempt(first.json.testInvitationId);
    const next = await invite({ emailId: "done@example.com", fullName: "Done" });
    expect(next.json.testInvitationId).toBeGreaterThan(first.json.testInvitationId);
  });

  it("generates e-mail and name when disableMandatoryFields is 1", async () => {
    const a = await invite({ disableMandatoryFields: 1 });
    expect(a.status).toBe(201);
    const stored = sb.state.invitations.find((i) => i.testInvitationId === a.json.testInvitationId)!;
    expect(stored.email).toMatch(/@anonymous\.assess\.invalid$/);
    expect(stored.name).toMatch(/^Anonymous Candidate /);
  });

  it("answers the documented 400s", async () => {
    const cases: Array<[unknown, string[]]> = [
      [{ emailId: "not-an-email", fullName: "X" }, ["Email address is in invalid format"]],
      [{ fullName: "X" }, ["emailId is required"]],
      [{ emailId: "x@example.com" }, ["fullName is required"]],
      [{ email: "x@example.com", name: "X" }, ["emailId is required", "fullName is required"]],
      [
        { emailId: "x@example.com", fullName: "X", startDateTime: "2025-06-16 09:00" },
        ["startDateTime must be in the format YYYY-MM-DDTHH:mm:ssZ"],
      ],
      [
        {
          emailId: "x@example.com",
          fullName: "X",
          startDateTime: "2025-06-16T09:00:00Z",
          endDateTime: "2025-06-16T08:00:00Z",
        },
        ["endDateTime must be after startDateTime"],
      ],
      [
        { emailId: "x@example.com", fullName: "X", ProctoringMode: "audio" },
        ["ProctoringMode must be one of disabled, image, video"],
      ],
      [{ emailId: "x@example.com", fullName: "X", sendEmail: true }, ["sendEmail must be 'yes' or 'no'"]],
      [{ emailId: "x@example.com", fullName: "X", hideInstruction: 2 }, ["hideInstruction must be 0 or 1"]],
      [{ emailId: "x@example.com", fullName: "X", timeZoneId: "UTC" }, ["timeZoneId must be an integer"]],
    ];
    for (const [body, errors] of cases) {
      const a = await invite(body);
      expect(a.status, JSON.stringify(body)).toBe(400);
      expect(a.json).toEqual({ errors });
    }
  });
});

describe("POST /v3/tests/{testId}/testlinks/{testLinkId}/invite", () => {
  it("invites through an active link: 201 with status Pending", async () => {
    const a = await c.api("POST", "/v3/tests/1001/testlinks/3001/invite", {
      body: { emailId: "via.link@example.com", fullName: "Via Link", sendEmail: 1 },
    });
    expect(a.status).toBe(201);
    expect(a.json).toMatchObject({ status: "Pending" });
    expect(typeof a.json.testInvitationId).toBe("number");
    const stored = sb.state.invitations.find((i) => i.testInvitationId === a.json.testInvitationId)!;
    expect(stored.testLinkId).toBe(3001);
  });

  it("answers 404 for a link not on the test, 400 for an inactive link, and checks sendEmail is an integer", async () => {
    const body = { emailId: "x@example.com", fullName: "X" };
    const missing = await c.api("POST", "/v3/tests/1001/testlinks/3004/invite", { body });
    expect(missing.status).toBe(404);
    expect(missing.json).toEqual({ statusCode: 404, message: "Test link not found" });
    const inactive = await c.api("POST", "/v3/tests/1001/testlinks/3003/invite", { body });
    expect(inactive.status).toBe(400);
    expect(inactive.json).toEqual({ errors: ["Test link is inactive"] });
    const str = await c.api("POST", "/v3/tests/1001/testlinks/3001/invite", {
      body: { ...body, sendEmail: "yes" },
    });
    expect(str.json).toEqual({ errors: ["sendEmail must be 0 or 1"] });
  });
});

describe("POST /v3/tests/{testId}/invite/bulk", () => {
  it("answers true as text/plain and invites every candidate once", async () => {
    const before = sb.state.invitations.length;
    const list = candidates(1000);
    const a = await c.api("POST", "/v3/tests/1002/invite/bulk", {
      body: {
        startDateTime: "2025-06-16T00:00:00Z",
        endDateTime: "2025-07-16T00:00:00Z",
        timezoneId: 1720,
        proctoringMode: "image",
        candidates: list,
      },
    });
    expect(a.status).toBe(200);
    expect(a.headers.get("content-type")).toMatch(/^text\/plain/);
    expect(a.text).toBe("true");
    expect(sb.state.invitations.length).toBe(before + 1000);
    // Sending the same file again creates nothing new (same test + e-mail → same Pending invitation).
    const again = await c.api("POST", "/v3/tests/1002/invite/bulk", { body: { candidates: list } });
    expect(again.text).toBe("true");
    expect(sb.state.invitations.length).toBe(before + 1000);
  });

  it("refuses more than 1000 candidates, an empty list and an invalid e-mail, inviting nobody", async () => {
    const before = sb.state.invitations.length;
    const tooMany = await c.api("POST", "/v3/tests/1002/invite/bulk", {
      body: { candidates: candidates(1001) },
    });
    expect(tooMany.status).toBe(400);
    expect(tooMany.json).toEqual({ errors: ["A maximum of 1000 candidates is allowed per request"] });
    const empty = await c.api("POST", "/v3/tests/1002/invite/bulk", { body: { candidates: [] } });
    expect(empty.status).toBe(400);
    const bad = await c.api("POST", "/v3/tests/1002/invite/bulk", {
      body: { candidates: [...candidates(3, "fresh.example"), { email: "broken@", name: "Broken" }] },
    });
    expect(bad.status).toBe(400);
    expect(bad.json.errors).toEqual(["Email address is in invalid format: broken@ (candidate 4)"]);
    expect(sb.state.invitations.length).toBe(before);
  });
});

describe("cancel and reattempt", () => {
  it("cancels only a Pending invitation", async () => {
    const inv = await invite({ emailId: "cancel.me@example.com", fullName: "Cancel Me" });
    const id = inv.json.testInvitationId;
    const a = await c.api("POST", `/v3/invitations/${id}/cancel`);
    expect(a.status).toBe(200);
    expect(a.json).toEqual({ testInvitationId: id, status: "cancelled" });
    const again = await c.api("POST", `/v3/invitations/${id}/cancel`);
    expect(again.status).toBe(400);
    expect(again.json).toEqual({ statusCode: 400, message: "Only a pending invitation can be cancelled" });
    const unknown = await c.api("POST", "/v3/invitations/1/cancel");
    expect(unknown.status).toBe(404);
    expect(unknown.json).toEqual({ statusCode: 404, message: "Invitation not found" });
    const foreign = sb.state.invitations.find((i) => i.accountId === "globex")!;
    const other = await c.api("POST", `/v3/invitations/${foreign.testInvitationId}/cancel`);
    expect(other.status).toBe(404);
  });

  it("reattempts a finished attempt with a new id, and refuses Pending and In Progress", async () => {
    const inv = await invite({ emailId: "retry@example.com", fullName: "Retry" });
    const id = inv.json.testInvitationId;
    const pending = await c.api("POST", `/v3/invitations/${id}/reattempt`, { body: {} });
    expect(pending.status).toBe(400);
    expect(pending.json).toEqual({
      statusCode: 400,
      message: "The candidate has not attempted the test yet",
    });
    const inProgress = sb.state.invitations.find(
      (i) => i.accountId === "acme" && i.status === "In Progress",
    )!;
    const ip = await c.api("POST", `/v3/invitations/${inProgress.testInvitationId}/reattempt`, { body: {} });
    expect(ip.status).toBe(400);

    await sb.completeAttempt(id, "TestLeft");
    const a = await c.api("POST", `/v3/invitations/${id}/reattempt`, {
      body: {
        StartDateTime: "2025-06-16T00:00:00Z",
        EndDateTime: "2025-06-20T00:00:00Z",
        TimeZoneId: 1720,
        CallbackUrl: "http://127.0.0.1:9/cb",
        hideInstruction: 0,
      },
    });
    expect(a.status).toBe(200);
    expect(a.json).toMatchObject({ callbackUrlRegistered: true, redirectUrlRegistered: false });
    expect(a.json.testInvitationId).toBeGreaterThan(id);
    expect(a.json.testUrl).toMatch(/^https:\/\//);
    const bad = await c.api("POST", `/v3/invitations/${id}/reattempt`, {
      body: { StartDateTime: "tomorrow" },
    });
    expect(bad.json).toEqual({ errors: ["StartDateTime must be in the format YYYY-MM-DDTHH:mm:ssZ"] });
  });
});
