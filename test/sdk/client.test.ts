/**
 * The SDK's client against the sandbox over loopback HTTP: configuration as the CLI reads it, iterators,
 * the attempts of a long span split into ≤30-day calls, errors as typed classes, and every operation of the
 * endpoint table reachable by resource and verb.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OPERATIONS, type Operation } from "../../src/api/operations/index.js";
import { SANDBOX_KEYS, type Sandbox } from "../../src/sandbox/index.js";
import {
  AssessApiError,
  AssessAuthError,
  type AssessClient,
  AssessError,
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
  });
});

afterAll(async () => {
  await client.close();
});

/** The API requests the sandbox received while `fn` ran. */
async function requestsOf(fn: () => Promise<unknown>) {
  const before = sandbox.requests.length;
  await fn();
  return sandbox.requests.slice(before);
}

describe("configuration", () => {
  it("reads the key and base URLs from the environment, as the CLI does", async () => {
    const fromEnv = createClient({
      env: {
        ASSESS_CONFIG_DIR: configDir,
        ASSESS_API_KEY: SANDBOX_KEYS.globex,
        ASSESS_BASE_URL: sandbox.url,
        ASSESS_SKILLS_BASE_URL: sandbox.skillsUrl,
      },
    });
    try {
      const page = await fromEnv.tests.list();
      expect(page.items.map((t) => t.testId).sort()).toEqual([2001, 2002]);
    } finally {
      await fromEnv.close();
    }
  });

  it("reads a profile of the CLI's config file, and options given win over it", async () => {
    const dir = mkdtempSync(join(tmpdir(), "assess-sdk-profile-"));
    try {
      writeFileSync(
        join(dir, "config.json"),
        JSON.stringify({
          profiles: {
            work: {
              "api-key": SANDBOX_KEYS.globex,
              "base-url": sandbox.url,
              "skills-base-url": sandbox.skillsUrl,
            },
          },
        }),
      );
      const env = { ASSESS_CONFIG_DIR: dir };
      const work = createClient({ profile: "work", env });
      const overridden = createClient({ profile: "work", env, apiKey: SANDBOX_KEYS.acme });
      try {
        expect((await work.tests.list()).items.map((t) => t.testId)).toContain(2001);
        expect((await overridden.tests.list()).items.map((t) => t.testId)).toContain(1001);
      } finally {
        await work.close();
        await overridden.close();
      }
      expect(() => createClient({ profile: "nope", env })).toThrow(/Profile "nope"/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("without a key, or with plain http to another machine, refuses before sending anything", () => {
    expect(() => createClient({ env: { ASSESS_CONFIG_DIR: configDir } })).toThrow(AssessAuthError);
    expect(() =>
      createClient({
        apiKey: "k".repeat(12),
        baseUrl: "http://example.com",
        env: { ASSESS_CONFIG_DIR: configDir },
      }),
    ).toThrow(AssessUsageError);
  });
});

describe("pages as async iterators", () => {
  it("tests.iterate walks every page and yields each test once", async () => {
    const all = (await client.tests.list({ pageSize: 100 })).items.map((t) => t.testId);
    const requests = await requestsOf(async () => {
      const seen: number[] = [];
      for await (const test of client.tests.iterate({ pageSize: 2 })) seen.push(test.testId);
      expect(seen).toEqual(all);
    });
    expect(all.length).toBeGreaterThan(2);
    // Pages of two: as many requests as it takes, each with its page number.
    expect(requests.map((r) => r.query.pageNo)).toEqual(
      Array.from({ length: Math.ceil(all.length / 2) }, (_, i) => String(i + 1)),
    );
  });

  it("breaking out of the loop stops the requests", async () => {
    const requests = await requestsOf(async () => {
      for await (const employee of client.employees.iterate({ pageSize: 1 })) {
        expect(employee).toHaveProperty("employeeId");
        break;
      }
    });
    expect(requests).toHaveLength(1);
  });
});

describe("attempts of any span", () => {
  it("splits a 95-day span into four calls of at most 30 days and lists what the CLI lists", async () => {
    const span = { from: "2026-01-01", to: "2026-04-05" };
    let attempts: Awaited<ReturnType<AssessClient["attempts"]["list"]>> = [];
    const requests = await requestsOf(async () => {
      attempts = await client.attempts.list(span);
    });
    const calls = requests.filter((r) => r.path === "/v3/candidates/testattempts");
    expect(calls).toHaveLength(4);
    const bounds = calls
      .map((r) => r.body as { StartDateTime: string; EndDateTime: string })
      .sort((a, b) => a.StartDateTime.localeCompare(b.StartDateTime));
    expect(bounds[0]!.StartDateTime).toBe("2026-01-01T00:00:00Z");
    expect(bounds.at(-1)!.EndDateTime).toBe("2026-04-05T23:59:59Z");
    for (const { StartDateTime, EndDateTime } of bounds) {
      expect(Date.parse(EndDateTime) - Date.parse(StartDateTime)).toBeLessThan(30 * 86_400_000);
    }
    const cli = await runCli(["attempts", "list", "--from", span.from, "--to", span.to, "-o", "json"], {
      env: {
        ASSESS_API_KEY: SANDBOX_KEYS.acme,
        ASSESS_BASE_URL: sandbox.url,
        ASSESS_SKILLS_BASE_URL: sandbox.skillsUrl,
        ASSESS_CONFIG_DIR: configDir,
      },
    });
    expect(cli.code).toBe(0);
    const ids = cli.json<Array<{ testInvitationId: number }>>().map((a) => a.testInvitationId);
    expect(attempts.map((a) => a.testInvitationId)).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("iterates the same attempts one by one, and takes Dates", async () => {
    const from = new Date(Date.now() - 60 * 86_400_000);
    const to = new Date();
    const listed = await client.attempts.list({ from, to, state: "completed" });
    const iterated: number[] = [];
    for await (const attempt of client.attempts.iterate({ from, to }))
      iterated.push(attempt.testInvitationId);
    expect(iterated).toEqual(listed.map((a) => a.testInvitationId));
    expect(listed.length).toBeGreaterThan(0);
  });

  it("refuses a text that is no date, before any call", async () => {
    const requests = await requestsOf(() =>
      expect(client.attempts.list({ from: "yesterday-ish", to: "now" })).rejects.toThrow(AssessUsageError),
    );
    expect(requests).toHaveLength(0);
  });
});

describe("errors as typed classes", () => {
  it("another account's test is an AssessApiError with its status and messages", async () => {
    const error = await client.tests.get(2001).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AssessApiError);
    expect(error).toBeInstanceOf(AssessError);
    const apiError = error as InstanceType<typeof AssessApiError>;
    // The sandbox, as the service, says the test is not this account's to read.
    expect(apiError.status).toBe(403);
    expect(apiError.messages.length).toBeGreaterThan(0);
    expect(apiError.message).toContain(apiError.messages[0]!);
  });

  it("a wrong key is an AssessApiError 401 whose message does not hold the key", async () => {
    const key = "sbx-wrong-key-0123456789";
    const wrong = createClient({
      apiKey: key,
      baseUrl: sandbox.url,
      skillsBaseUrl: sandbox.skillsUrl,
      env: { ASSESS_CONFIG_DIR: configDir },
      retries: 0,
    });
    try {
      const error = (await wrong.tests.list().catch((e: unknown) => e)) as InstanceType<
        typeof AssessApiError
      >;
      expect(error).toBeInstanceOf(AssessApiError);
      expect(error.status).toBe(401);
      expect(JSON.stringify({ message: error.message, messages: error.messages })).not.toContain(key);
    } finally {
      await wrong.close();
    }
  });

  it("a request body that breaks the schema is refused before it is sent", async () => {
    let error: unknown;
    const requests = await requestsOf(async () => {
      error = await client.invitations.create(1001, { emailId: "not-an-email" }).catch((e: unknown) => e);
    });
    expect(requests).toHaveLength(0);
    expect(error).toBeInstanceOf(AssessUsageError);
    expect((error as InstanceType<typeof AssessUsageError>).messages).toEqual([
      "emailId: is not a valid e-mail address",
    ]);
  });

  it("debug lines tell each request and answer, and never the key", async () => {
    const lines: string[] = [];
    const debugging = createClient({
      apiKey: SANDBOX_KEYS.acme,
      baseUrl: sandbox.url,
      skillsBaseUrl: sandbox.skillsUrl,
      env: { ASSESS_CONFIG_DIR: configDir },
      debug: (line) => lines.push(line),
    });
    try {
      await debugging.tests.list({ pageSize: 1 });
      await debugging.invitations.create(1001, { emailId: "debug-me@example.com", fullName: "Debug Me" });
    } finally {
      await debugging.close();
    }
    expect(lines.some((line) => line.includes("GET") && line.includes("/v3/tests"))).toBe(true);
    expect(lines.some((line) => line.includes("POST") && line.includes("/v3/tests/1001/invite"))).toBe(true);
    expect(lines.join("\n")).not.toContain(SANDBOX_KEYS.acme);
  });

  it("a 503 is retried as the CLI retries it, and each wait is told", async () => {
    const waits: string[] = [];
    const retrying = createClient({
      apiKey: SANDBOX_KEYS.acme,
      baseUrl: sandbox.url,
      skillsBaseUrl: sandbox.skillsUrl,
      env: { ASSESS_CONFIG_DIR: configDir },
      retries: 2,
      onRetry: (message) => waits.push(message),
    });
    try {
      sandbox.faults.add({
        method: "GET",
        path: "/v3/tests",
        kind: "status",
        status: 503,
        headers: { "retry-after": "0" },
      });
      const page = await retrying.tests.list();
      expect(page.items.length).toBeGreaterThan(0);
      expect(waits).toHaveLength(1);
      expect(waits[0]).toMatch(/HTTP 503 .*retrying/);
    } finally {
      sandbox.faults.clear();
      await retrying.close();
    }
  });
});

describe("every operation of the table of operations", () => {
  it("is on the client, by resource and verb, and its method sends that operation's request", async () => {
    const link = (await client.testLinks.list(1001))[0]!;
    const employee = (await client.employees.list({ pageSize: 1 })).items[0]! as { employeeId: number };
    const attempt = (await client.attempts.list({ from: "90d", to: "now" }))[0]!;
    const email = `sdk-reach-${Date.now()}@example.com`;
    const calls: Record<Operation, (method: never) => Promise<unknown>> = {
      listTests: (m: AssessClient["tests"]["list"]) => m(),
      getTest: (m: AssessClient["tests"]["get"]) => m(1001),
      getSettings: (m: AssessClient["tests"]["settings"]["get"]) => m(1001),
      updateSettings: (m: AssessClient["tests"]["settings"]["update"]) => m(1001, { randomQuestions: 1 }),
      invite: (m: AssessClient["invitations"]["create"]) => m(1001, { emailId: email, fullName: "Reach Me" }),
      cancelInvitation: (m: AssessClient["invitations"]["cancel"]) => m(attempt.testInvitationId),
      reattempt: (m: AssessClient["invitations"]["reattempt"]) => m(attempt.testInvitationId, {}),
      bulkInvite: (m: AssessClient["invitations"]["bulk"]) => m(1001, [{ email, name: "Reach Me" }]),
      inviteThroughLink: (m: AssessClient["testLinks"]["invite"]) =>
        m(1001, link.testLinkId, { emailId: `link-${email}`, fullName: "Reach Link" }),
      listLinks: (m: AssessClient["testLinks"]["list"]) => m(1001),
      getLink: (m: AssessClient["testLinks"]["get"]) => m(1001, link.testLinkId),
      createLink: (m: AssessClient["testLinks"]["create"]) => m(1001, { testLinkName: "reach" }),
      updateLink: (m: AssessClient["testLinks"]["update"]) =>
        m(1001, link.testLinkId, { testLinkName: "reach 2" }),
      getReport: (m: AssessClient["reports"]["get"]) => m(attempt.testInvitationId),
      getReportPdf: (m: AssessClient["reports"]["pdf"]) => m(attempt.testInvitationId),
      listAttempts: (m: AssessClient["attempts"]["list"]) => m({ from: "7d", to: "now" }),
      processCallbacks: (m: AssessClient["callbacks"]["process"]) => m([attempt.testInvitationId]),
      createUser: (m: AssessClient["users"]["create"]) =>
        m({ email: `user-${email}`, fullName: "Reach User" }),
      updateUser: (m: AssessClient["users"]["update"]) => m({ Email: `user-${email}`, BusinessunitId: 1 }),
      setUserStatus: (m: AssessClient["users"]["setStatus"]) =>
        m({ email: `user-${email}`, status: "Inactive" }),
      maskCandidate: (m: AssessClient["gdpr"]["mask"]) => m({ CandidateEmail: email }),
      listEmployees: (m: AssessClient["employees"]["list"]) => m(),
      upsertEmployees: (m: AssessClient["employees"]["upsert"]) =>
        m([{ email: `emp-${email}`, firstName: "Reach", lastName: "Employee" }]),
      setEmployeeStatus: (m: AssessClient["employees"]["setStatus"]) =>
        m(employee.employeeId, { status: "Active" }),
      getEmployeeReport: (m: AssessClient["employees"]["report"]) => m(employee.employeeId, 1001),
      getSkillsProfile: (m: AssessClient["employees"]["skillsProfile"]) => m(employee.employeeId),
      listSkillsProfiles: (m: AssessClient["employees"]["skillsProfiles"]["list"]) => m(),
      getSkillGap: (m: AssessClient["employees"]["skillGap"]) => m(employee.employeeId),
      listCertificates: (m: AssessClient["employees"]["certificates"]["list"]) => m(employee.employeeId),
      addCertificate: (m: AssessClient["employees"]["certificates"]["add"]) =>
        m(employee.employeeId, { name: "Reach Cert", issuedBy: "SDK" }),
      assignLearning: (m: AssessClient["employees"]["assignLearning"]) =>
        m(employee.employeeId, { courseId: "reach" }),
      uploadResume: (m: AssessClient["employees"]["uploadResume"]) =>
        m(employee.employeeId, {
          contentType: "multipart/form-data; boundary=reach",
          data: () =>
            new TextEncoder().encode(
              '--reach\r\nContent-Disposition: form-data; name="file"; filename="cv.pdf"\r\nContent-Type: application/pdf\r\n\r\n%PDF-1.4\r\n--reach--\r\n',
            ),
          describe: { file: "cv.pdf" },
        }),
    };
    const missed: string[] = [];
    for (const operation of Object.keys(OPERATIONS) as Operation[]) {
      const path = `${OPERATIONS[operation].resource}.${OPERATIONS[operation].verb}`;
      const method = path
        .split(".")
        .reduce<unknown>((at, key) => (at as Record<string, unknown>)[key], client);
      expect(typeof method, path).toBe("function");
      const { method: verb, path: template } = OPERATIONS[operation];
      const pattern = new RegExp(`^${template.replace(/\{\w+\}/g, "[^/]+")}$`);
      const requests = await requestsOf(() =>
        calls[operation](method as never).catch((error: unknown) => {
          // An answer of the service is fine here (this checks the request went out); others are not.
          if (!(error instanceof AssessApiError)) throw error;
        }),
      );
      if (!requests.some((r) => r.method === verb && pattern.test(r.path))) {
        missed.push(
          `${operation} (${path}): ${requests.map((r) => `${r.method} ${r.path}`).join(", ") || "nothing sent"}`,
        );
      }
    }
    expect(missed).toEqual([]);
  });

  it("reports.pdf gives the PDF's bytes", async () => {
    const attempt = (await client.attempts.list({ from: "90d", to: "now" }))[0]!;
    const pdf = await client.reports.pdf(attempt.testInvitationId);
    expect(Buffer.from(pdf).subarray(0, 5).toString()).toBe("%PDF-");
  });
});
