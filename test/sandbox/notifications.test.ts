import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sleep } from "../helpers/cli.js";
import { call, useSandbox } from "./helpers.js";

interface Received {
  path: string;
  contentType: string | undefined;
  body: Record<string, unknown>;
}

const { sb, c } = useSandbox();
let hook: http.Server;
let hookUrl: string;
const received: Received[] = [];
let failNext = 0;

beforeAll(async () => {
  hook = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (d: Buffer) => chunks.push(d));
    req.on("end", () => {
      received.push({
        path: req.url ?? "",
        contentType: req.headers["content-type"],
        body: JSON.parse(Buffer.concat(chunks).toString("utf8")),
      });
      if (failNext > 0) {
        failNext--;
        res.writeHead(500).end();
      } else res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => hook.listen(0, "127.0.0.1", () => r()));
  hookUrl = `http://127.0.0.1:${(hook.address() as AddressInfo).port}`;
});
afterAll(async () => {
  hook.closeAllConnections();
  await new Promise((r) => hook.close(r));
});

async function invite(email: string, callbackURL?: string): Promise<number> {
  const a = await c.api("POST", "/v3/tests/1001/invite", {
    body: { emailId: email, fullName: "Notified Person", callbackURL },
  });
  expect(a.status).toBe(201);
  return a.json.testInvitationId;
}

describe("test-completion notifications", () => {
  it("completeAttempt posts In Progress, then the final notification, as JSON", async () => {
    received.length = 0;
    const id = await invite("notified@example.com", `${hookUrl}/hook/a`);
    const { delivered } = await sb.completeAttempt(id, "Complete");
    expect(delivered.map((d) => d.status)).toEqual([204, 204]);
    expect(received.map((r) => r.path)).toEqual(["/hook/a", "/hook/a"]);
    expect(received.every((r) => r.contentType === "application/json")).toBe(true);
    const [started, finished] = received.map((r) => r.body);
    expect(Object.keys(started!).sort()).toEqual(
      [
        "TestInvitationId",
        "CandidateEmailId",
        "Status",
        "TotalScore",
        "CandidateScore",
        "PerformanceCategory",
        "ReportPDFUrl",
        "AttemptedOn",
        "AttemptedOnUtc",
      ].sort(),
    );
    expect(started).toMatchObject({
      TestInvitationId: id,
      CandidateEmailId: "notified@example.com",
      Status: "In Progress",
      ReportPDFUrl: null,
    });
    expect(finished).toMatchObject({
      TestInvitationId: id,
      Status: "Complete",
      ReportPDFUrl: `${sb.url}/v3/reports/${id}/pdf`,
      AttemptedOn: "15-Jun-2025 12:00 PM",
      AttemptedOnUtc: "2025-06-15T12:00:00",
    });
    expect(typeof finished!.CandidateScore).toBe("number");
    expect(finished!.PerformanceCategory).toEqual(expect.any(String));
    const report = await c.api("GET", `/v3/reports/${id}`);
    expect(report.json.candidatePoints).toBe(finished!.CandidateScore);
  });

  it("says Test Left in the notification of a TestLeft attempt", async () => {
    received.length = 0;
    const id = await invite("leaver@example.com", `${hookUrl}/hook/b`);
    await sb.completeAttempt(id, "TestLeft");
    expect(received.at(-1)!.body.Status).toBe("Test Left");
    expect(sb.state.invitations.find((i) => i.testInvitationId === id)!.status).toBe("TestLeft");
  });

  it("retries a failed delivery twice and survives an unreachable callback", async () => {
    received.length = 0;
    failNext = 2;
    const id = await invite("retry.hook@example.com", `${hookUrl}/hook/c`);
    const { delivered } = await sb.completeAttempt(id);
    // In Progress failed twice then got through on its third try; the final one went through at once.
    expect(received.length).toBe(4);
    expect(delivered.map((d) => d.status)).toEqual([204, 204]);

    const closed = http.createServer();
    await new Promise<void>((r) => closed.listen(0, "127.0.0.1", () => r()));
    const deadUrl = `http://127.0.0.1:${(closed.address() as AddressInfo).port}/gone`;
    await new Promise((r) => closed.close(r));
    const dead = await invite("dead.hook@example.com", deadUrl);
    const out = await sb.completeAttempt(dead);
    expect(out.delivered.map((d) => d.status)).toEqual([null, null]);
    expect(sb.state.invitations.find((i) => i.testInvitationId === dead)!.status).toBe("Complete");
  });

  it("works without a callback URL, and over the control endpoint", async () => {
    const id = await invite("silent@example.com");
    const out = await call(sb.url, "POST", `/_sandbox/invitations/${id}/complete`, {
      key: null,
      body: { status: "Terminated" },
    });
    expect(out.status).toBe(200);
    expect(out.json).toEqual({ delivered: [] });
    expect(sb.state.invitations.find((i) => i.testInvitationId === id)!.status).toBe("Terminated");
    const again = await call(sb.url, "POST", `/_sandbox/invitations/${id}/complete`, { key: null });
    expect(again.status).toBe(400);
    const missing = await call(sb.url, "POST", "/_sandbox/invitations/1/complete", { key: null });
    expect(missing.status).toBe(404);
    await expect(sb.completeAttempt(1)).rejects.toThrow(/Invitation not found/);
  });

  it("callbacks process re-delivers the final notification of finished attempts with a callback URL", async () => {
    received.length = 0;
    const done = await invite("redeliver@example.com", `${hookUrl}/hook/d`);
    await sb.completeAttempt(done);
    const pending = await invite("not.yet@example.com", `${hookUrl}/hook/e`);
    received.length = 0;
    const a = await c.api("POST", "/v3/callbacks/process", { body: { testinvitationIds: [done, pending] } });
    expect(a.json).toEqual({
      result: { testinvitationIds: { successful: [done], failed: [pending] } },
      errors: null,
    });
    for (let i = 0; i < 50 && received.length === 0; i++) await sleep(20);
    expect(received.map((r) => [r.path, r.body.Status, r.body.TestInvitationId])).toEqual([
      ["/hook/d", "Complete", done],
    ]);
  });
});
