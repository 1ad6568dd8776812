import { describe, expect, it } from "vitest";
import { useSandbox } from "./helpers.js";

const { sb, c } = useSandbox();

describe("users", () => {
  it("creates a Reviewer in the default business unit (fullName or fullname)", async () => {
    const a = await c.api("POST", "/v3/accounts/user/create", {
      body: { email: "new.rev@acme.example", fullName: "New Rev" },
    });
    expect(a.status).toBe(200);
    expect(a.json).toEqual({ email: "new.rev@acme.example", fullName: "New Rev", businessunitId: 10 });
    expect(sb.state.users.find((u) => u.email === "new.rev@acme.example")!.role).toBe("Reviewer");
    const b = await c.api("POST", "/v3/accounts/user/create", {
      body: { email: "lower@acme.example", fullname: "Lower Case", businessunitId: 12 },
    });
    expect(b.json).toEqual({ email: "lower@acme.example", fullName: "Lower Case", businessunitId: 12 });
  });

  it("answers the create 400s", async () => {
    const bad = await c.api("POST", "/v3/accounts/user/create", { body: { email: "nope", fullName: "X" } });
    expect(bad.status).toBe(400);
    expect(bad.json).toEqual({ errors: ["Email address is in invalid format"] });
    const dup = await c.api("POST", "/v3/accounts/user/create", {
      body: { email: "ADMIN@acme.example", fullName: "X" },
    });
    expect(dup.json).toEqual({ errors: ["The user is already exists"] });
    const unit = await c.api("POST", "/v3/accounts/user/create", {
      body: { email: "unit@acme.example", fullName: "X", businessunitId: 20 },
    });
    expect(unit.json).toEqual({
      errors: ["The provided BusinessUnitId is invalid or not associated with your account."],
    });
  });

  it("updates the business unit with Email/BusinessunitId", async () => {
    const a = await c.api("POST", "/v3/accounts/user/update", {
      body: { Email: "tom.reviewer@acme.example", BusinessunitId: 11 },
    });
    expect(a.status).toBe(200);
    expect(a.json).toEqual({ email: "tom.reviewer@acme.example", businessunitId: 11 });
    const noEmail = await c.api("POST", "/v3/accounts/user/update", {
      body: { email: "tom.reviewer@acme.example", BusinessunitId: 11 },
    });
    expect(noEmail.json).toEqual({ errors: ["A Valid Email address is required"] });
    const foreignUnit = await c.api("POST", "/v3/accounts/user/update", {
      body: { Email: "tom.reviewer@acme.example", BusinessunitId: 20 },
    });
    expect(foreignUnit.json).toEqual({
      errors: ["The provided BusinessUnitId is invalid or not associated with your account."],
    });
    const unknown = await c.api("POST", "/v3/accounts/user/update", {
      body: { Email: "ghost@acme.example", BusinessunitId: 11 },
    });
    expect(unknown.status).toBe(404);
    expect(unknown.json).toEqual({ statusCode: 404, message: "User not found" });
  });

  it("activates and deactivates, with a case-sensitive status", async () => {
    const a = await c.api("POST", "/v3/accounts/user/status", {
      body: { email: "priya.recruiter@acme.example", status: "Inactive" },
    });
    expect(a.status).toBe(200);
    expect(a.json).toEqual({
      email: "priya.recruiter@acme.example",
      fullName: "Priya Raman",
      businessunitId: 11,
      status: "Inactive",
    });
    const lower = await c.api("POST", "/v3/accounts/user/status", {
      body: { email: "priya.recruiter@acme.example", status: "active" },
    });
    expect(lower.status).toBe(400);
    expect(lower.json).toEqual({ errors: ["Status must be either 'Active' or 'Inactive'"] });
    const badEmail = await c.api("POST", "/v3/accounts/user/status", {
      body: { email: "x", status: "Active" },
    });
    expect(badEmail.json).toEqual({ errors: ["Email address is in invalid format"] });
  });
});

describe("GDPR masking", () => {
  it("masks every invitation of the candidate in the account", async () => {
    const email = "forget.me@example.com";
    const ids: number[] = [];
    for (const testId of [1001, 1003]) {
      const a = await c.api("POST", `/v3/tests/${testId}/invite`, {
        body: { emailId: email, fullName: "Forget Me" },
      });
      ids.push(a.json.testInvitationId);
    }
    const a = await c.api("POST", "/v3/gdpr/requests", { body: { CandidateEmail: "Forget.Me@example.com" } });
    expect(a.status).toBe(200);
    expect(a.json).toEqual({ result: "Request accepted for processing" });
    for (const id of ids) {
      const inv = sb.state.invitations.find((i) => i.testInvitationId === id)!;
      expect(inv.name).toBe("Masked Candidate");
      expect(inv.email).toMatch(/^masked-[0-9a-f]{10}@masked\.invalid$/);
    }
    const again = await c.api("POST", "/v3/gdpr/requests", { body: { CandidateEmail: email } });
    expect(again.status).toBe(400);
    expect(again.json).toEqual({ errors: ["No records found for the given candidate email"] });
  });

  it("masks only the given invitation when testinvitationId is sent", async () => {
    const email = "partial@example.com";
    const one = await c.api("POST", "/v3/tests/1001/invite", {
      body: { emailId: email, fullName: "Partial" },
    });
    const two = await c.api("POST", "/v3/tests/1002/invite", {
      body: { emailId: email, fullName: "Partial" },
    });
    const a = await c.api("POST", "/v3/gdpr/requests", {
      body: { CandidateEmail: email, testinvitationId: one.json.testInvitationId },
    });
    expect(a.status).toBe(200);
    expect(sb.state.invitations.find((i) => i.testInvitationId === one.json.testInvitationId)!.name).toBe(
      "Masked Candidate",
    );
    expect(sb.state.invitations.find((i) => i.testInvitationId === two.json.testInvitationId)!.name).toBe(
      "Partial",
    );
    const invalid = await c.api("POST", "/v3/gdpr/requests", { body: { CandidateEmail: "nope" } });
    expect(invalid.json).toEqual({ errors: ["Email address is in invalid format"] });
  });
});
