/**
 * Answers an independent implementation of API.md may give where API.md leaves the detail open (an empty list
 * left out, an empty body on success, a failure listed as a record, values read back in another spelling): the
 * CLI and the SDK against a server on 127.0.0.1 that answers what each test says, and what they sent.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { request } from "undici";
import { afterEach, describe, expect, it } from "vitest";
import { type HostileServer, startHostileServer } from "../../fixtures/hostile/servers.js";
import { createClient } from "../../src/sdk/index.js";
import { eventually, startLiveCli } from "../callbacks/live.js";
import { ndjson, runCli, useTempDir } from "../helpers/cli.js";

const tmp = useTempDir("assess-tolerance-");
const servers: HostileServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

interface Reply {
  status?: number;
  contentType?: string;
  body?: unknown;
}
interface Seen {
  method: string;
  url: string;
  body: string;
}

/** A service that answers `reply(method, path, index)`; the requests it got, with their bodies, in `seen`. */
async function serve(reply: (method: string, path: string, index: number) => Reply) {
  const seen: Seen[] = [];
  const server = await startHostileServer(async ({ req, res, index }) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString();
    seen.push({ method: req.method ?? "", url: req.url ?? "", body });
    const {
      status = 200,
      contentType = "application/json",
      body: answer,
    } = reply(req.method ?? "", new URL(req.url ?? "/", "http://x").pathname, index);
    const text = answer === undefined ? "" : typeof answer === "string" ? answer : JSON.stringify(answer);
    res.writeHead(status, contentType ? { "content-type": contentType } : {}).end(text);
  });
  servers.push(server);
  return { server, seen };
}

function env(server: HostileServer) {
  return {
    ASSESS_CONFIG_DIR: tmp.fresh(),
    ASSESS_API_KEY: "tolerance-key-0000",
    ASSESS_BASE_URL: server.url,
    ASSESS_SKILLS_BASE_URL: server.url,
    CI: "true",
  };
}

const assess = (server: HostileServer, argv: string[]) => runCli(argv, { env: env(server) });
const sdk = (server: HostileServer) =>
  createClient({ apiKey: "tolerance-key-0000", baseUrl: server.url, env: env(server) });

describe("an empty list the service leaves out of its answer", () => {
  const EMPTY = [
    { argv: ["tests", "list"], body: { count: 0 }, says: /No tests found/ },
    { argv: ["links", "list", "--test", "1001"], body: {}, says: /has no links yet/ },
    {
      argv: ["attempts", "list", "--from", "7d", "--to", "now"],
      body: { result: {}, errors: null },
      says: /No attempts in that period/,
    },
    {
      argv: ["employees", "list", "--all"],
      body: { hasNextPage: false, totalCount: 0, pageNumber: 1 },
      says: /No employees/,
    },
    { argv: ["employees", "certificates", "5"], body: { totalCount: 0 }, says: /has no certificates/ },
  ];
  for (const { argv, body, says } of EMPTY) {
    it(`\`${argv.slice(0, 2).join(" ")}\` answered ${JSON.stringify(body)}: an empty list, exit 0`, async () => {
      const { server } = await serve(() => ({ body }));
      const r = await assess(server, argv);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toMatch(says);
      expect(r.stderr).not.toMatch(/holds no list/);
    });
  }

  it("the SDK reads them as empty lists too; an answer that says nothing of a list is still refused", async () => {
    const { server } = await serve((_method, path) => ({
      body: path === "/v3/tests" ? { count: 0 } : { status: "maintenance" },
    }));
    const client = sdk(server);
    try {
      expect((await client.tests.list()).items).toEqual([]);
      await expect(client.testLinks.list(1001)).rejects.toThrow(/holds no list of test links/);
    } finally {
      await client.close();
    }
  });
});

describe("a bulk write answered 2xx with an empty body", () => {
  const ids = ["callbacks", "resend", "50123", "50124", "-o", "json"];
  it("`callbacks resend` answered 204 No Content: the ids are queued (exit 0), and a rerun sends none again", async () => {
    const { server, seen } = await serve(() => ({ status: 204, contentType: "" }));
    const config = tmp.fresh();
    const run = () => runCli(ids, { env: { ...env(server), ASSESS_CONFIG_DIR: config } });
    const r = await run();
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ sent: 2, uncertain: 0, chunks: { succeeded: 1 } });
    expect(seen.map((s) => `${s.method} ${s.url} ${s.body}`)).toEqual([
      'POST /v3/callbacks/process {"testinvitationIds":[50123,50124]}',
    ]);
    const again = await run();
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ alreadyDone: 2, sent: 0 });
    expect(seen).toHaveLength(1);
  });

  it("`employees upsert` answered 200 with no body: every row confirmed (exit 0), none uncertain", async () => {
    const file = tmp.file("employees.csv");
    writeFileSync(file, "email,firstName,lastName\nada@example.com,Ada,L\ngrace@example.com,Grace,H\n");
    const { server, seen } = await serve(() => ({ status: 200, contentType: "text/plain", body: "" }));
    const r = await assess(server, ["employees", "upsert", file, "-o", "json"]);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ sent: 2, uncertain: 0, failed: 0 });
    expect(seen.map((s) => `${s.method} ${s.url}`)).toEqual(["POST /employees/upsert"]);
  });

  it("the SDK's callbacks.process resolves such an answer with no id failed", async () => {
    const { server } = await serve(() => ({ status: 200, body: "" }));
    const client = sdk(server);
    try {
      expect(await client.callbacks.process([50123])).toEqual({ successful: [], failed: [], invalid: [] });
    } finally {
      await client.close();
    }
  });
});

describe("callbacks process: the ids it could not queue, listed as records", () => {
  // API.md 4.3 types `failed` only as an Array: its items may be records naming the id and why.
  const answer = {
    result: {
      testinvitationIds: {
        successful: [{ testInvitationId: 50123 }],
        failed: [{ testInvitationId: "50124", reason: "No callback URL registered" }],
      },
    },
    errors: null,
  };

  it("`callbacks resend` reports the failed one (exit 3), not both as queued", async () => {
    const { server } = await serve(() => ({ body: answer }));
    const r = await assess(server, ["callbacks", "resend", "50123", "50124", "-o", "json"]);
    expect(r.code, r.stderr).toBe(3);
    const summary = JSON.parse(r.stdout);
    expect(summary).toMatchObject({ sent: 2, failed: 1 });
    expect(summary.failures).toEqual([expect.objectContaining({ label: "50124" })]);
  });

  it("the SDK names it failed; a failure it cannot read at all leaves no id claimed queued", async () => {
    const unreadable = { result: { testinvitationIds: { successful: [50123], failed: [{ code: 7 }] } } };
    const { server } = await serve((_m, _p, index) => ({ body: index === 0 ? answer : unreadable }));
    const client = sdk(server);
    try {
      expect(await client.callbacks.process([50123, 50124])).toEqual({
        successful: [50123],
        failed: [50124],
        invalid: [],
      });
      expect(await client.callbacks.process([50123, 50124])).toEqual({
        successful: [50123],
        failed: [50124],
        invalid: [],
      });
    } finally {
      await client.close();
    }
  });
  it('an id of the answer that is not plainly one ("0050123") is no id: nothing is claimed queued by it', async () => {
    const loose = { result: { testinvitationIds: { successful: ["0050123", 50124], failed: [] } } };
    const { server } = await serve(() => ({ body: loose }));
    const client = sdk(server);
    try {
      // Number("0050123") is 50123: read so, the callback of 50123 would be claimed queued on a guess.
      expect(await client.callbacks.process([50123, 50124])).toEqual({
        successful: [50124],
        failed: [],
        invalid: [],
      });
    } finally {
      await client.close();
    }
  });
});

describe("links update writes back the values the service read out in its own spelling", () => {
  const link = {
    testLinkId: 3001,
    testId: 1001,
    testLinkName: "Campus",
    testLinkStatus: "Active",
    invitationType: "open",
    isApiLink: "true",
    proctoringSettings: { proctoringMode: "image" },
    stakeholderEmails: ["lead@example.com", "hr@example.com"],
    invitationSchedule: {
      scheduleType: "validityindays",
      scheduleDetails: { invitationValidityInDays: "7", timeZoneId: "1720", startDateTime: null },
    },
  };

  it("isApiLink as text and the stakeholders as a list are sent as API.md types them: exit 0", async () => {
    const { server, seen } = await serve(() => ({ body: link }));
    const r = await assess(server, ["links", "update", "3001", "--test", "1001", "--validity-days", "14"]);
    expect(r.code, r.stderr).toBe(0);
    expect(seen.map((s) => `${s.method} ${s.url}`)).toEqual([
      "GET /v3/tests/1001/testlinks/3001",
      "POST /v3/tests/1001/testlinks/3001",
    ]);
    expect(JSON.parse(seen[1]!.body)).toEqual({
      testLinkName: "Campus",
      invitationType: "open",
      isApiLink: true,
      proctoringSettings: { proctoringMode: "image" },
      invitationSchedule: {
        scheduleType: "validityindays",
        scheduleDetails: { invitationValidityInDays: 14, timeZoneId: 1720 },
      },
      stakeholderEmails: "lead@example.com,hr@example.com",
      testLinkStatus: "active",
    });
  });
});

describe("tests settings set writes back the flags the service read out as words", () => {
  it('flags answered Yes/No/true/"1" are sent back as the Integers of API.md 2.2', async () => {
    const settings = {
      testName: "Java",
      typeOfTest: "1",
      randomQuestions: "Yes",
      copyPaste: "No",
      candidateFeedback: "true",
      showQuestionScore: false,
      sectionEndPopup: "1",
    };
    const { server, seen } = await serve((method) => ({
      status: method === "GET" ? 200 : 201,
      body: settings,
    }));
    const r = await assess(server, ["tests", "settings", "set", "1001", "--random-answers", "yes"]);
    expect(r.code, r.stderr).toBe(0);
    expect(seen.map((s) => `${s.method} ${s.url}`)).toEqual([
      "GET /v3/tests/1001/settings",
      "POST /v3/tests/1001/settings",
    ]);
    expect(JSON.parse(seen[1]!.body)).toEqual({
      testName: "Java",
      typeOfTest: 1,
      randomQuestions: 1,
      copyPaste: 0,
      candidateFeedback: 1,
      showQuestionScore: 0,
      sectionEndPopup: 1,
      randomAnswers: 1,
    });
  });
});

describe("paging told in text", () => {
  it('employees list --all follows "hasNextPage":"true" past pages shorter than asked (a service that caps the size)', async () => {
    const { server, seen } = await serve((_m, _p, index) => ({
      body: {
        items: [1, 2, 3].map((i) => ({ employeeId: index * 3 + i, email: `e${index * 3 + i}@example.com` })),
        hasNextPage: index < 2 ? "true" : "False",
        pageNumber: String(index + 1),
      },
    }));
    const r = await assess(server, ["employees", "list", "--all", "--page-size", "5", "-o", "ndjson"]);
    expect(r.code, r.stderr).toBe(0);
    expect(
      r.stdout
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line).employeeId),
    ).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(seen.map((s) => s.url)).toEqual([1, 2, 3].map((n) => `/employees?PageNumber=${n}&PageSize=5`));
  });
});

describe("one record answered inside a wrapper named for it", () => {
  const WRAPPED = [
    {
      argv: ["tests", "get", "1001"],
      body: { test: { testId: 1001, testName: "Java (intermediate)" } },
      shows: /1001.*Java \(intermediate\)/,
    },
    {
      argv: ["tests", "get", "1001"],
      body: { tests: [{ testId: 1001, testName: "Java (intermediate)" }], errors: null },
      shows: /1001.*Java \(intermediate\)/,
    },
    {
      argv: ["reports", "get", "50123"],
      body: { report: { testInvitationId: 50123, candidateName: "Ada", scorePercentage: 81.5 } },
      shows: /50123.*Ada.*81\.5/,
    },
    {
      argv: ["users", "create", "--email", "grace@example.com", "--name", "Grace"],
      body: { user: { email: "grace@example.com", fullName: "Grace", businessunitId: 7 } },
      shows: /grace@example\.com\tGrace\t7/,
    },
    {
      argv: ["invite", "send", "--test", "1001", "--email", "ada@example.com", "--name", "Ada"],
      body: { invitation: { testInvitationId: 50123, testUrl: "https://example.com/t/1" } },
      shows: /50123\thttps:\/\/example\.com\/t\/1/,
    },
  ];
  for (const { argv, body, shows } of WRAPPED) {
    it(`\`${argv.slice(0, 2).join(" ")}\` answered ${JSON.stringify(body).slice(0, 40)}…: the record inside`, async () => {
      const { server, seen } = await serve(() => ({ body }));
      const r = await assess(server, argv);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toMatch(shows);
      expect(r.stderr).not.toMatch(/could not be read|warning/);
      expect(seen).toHaveLength(1);
    });
  }

  it("a record of the documented fields is read as itself, whatever else it holds", async () => {
    const body = { testId: 1001, testName: "Java", owner: { testId: 7, testName: "not this" } };
    const { server } = await serve(() => ({ body }));
    const r = await assess(server, ["tests", "get", "1001", "-o", "json"]);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual(body);
  });
});

describe("the attempt listing never sends a window that starts where it ends unasked", () => {
  it("attempts list --from 30d --to now against a service that wants EndDateTime after StartDateTime: exit 0", async () => {
    const { server, seen } = await serve((_m, _p, index) => {
      const body = JSON.parse(seen[index]!.body) as { StartDateTime: string; EndDateTime: string };
      if (body.EndDateTime <= body.StartDateTime)
        return { status: 400, body: { result: null, errors: ["EndDateTime must be after StartDateTime"] } };
      return { body: { result: { testAttempts: [] }, errors: null } };
    });
    const r = await assess(server, ["attempts", "list", "--from", "30d", "--to", "now"]);
    expect(r.code, r.stderr).toBe(0);
    const spans = seen.map((s) => JSON.parse(s.body) as { StartDateTime: string; EndDateTime: string });
    expect(spans).toHaveLength(2);
    for (const span of spans) expect(span.EndDateTime > span.StartDateTime).toBe(true);
  });
});

describe("a write answered 2xx with an explicit no", () => {
  const NO = [
    { argv: ["invite", "cancel", "50123"], body: false, says: /answered false/ },
    {
      argv: ["gdpr", "mask", "--email", "ada@example.com", "--yes"],
      body: { result: false, errors: ["No records for the given e-mail"] },
      says: /No records for the given e-mail/,
    },
    {
      argv: ["users", "activate", "--email", "grace@example.com"],
      body: { success: false, message: "User not found" },
      says: /User not found/,
    },
  ];
  for (const { argv, body, says } of NO) {
    it(`\`${argv.slice(0, 2).join(" ")}\` answered 200 ${JSON.stringify(body)}: not done, exit 1`, async () => {
      const { server, seen } = await serve(() => ({ body }));
      const r = await assess(server, argv);
      expect(r.code, r.stderr).toBe(1);
      expect(r.stderr).toMatch(says);
      expect(r.stderr).toMatch(/did not do it/);
      expect(r.stderr).not.toMatch(/✓/);
      expect(seen).toHaveLength(1);
    });
  }

  it("`invite cancel` answered 200 true is done (exit 0)", async () => {
    const { server } = await serve(() => ({ body: true }));
    const r = await assess(server, ["invite", "cancel", "50123"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/✓ Invitation 50123 cancelled/);
  });
});

describe("a bulk write answered 2xx with an explicit no", () => {
  it('`employees upsert` answered {"success":false,…}: its rows refused (exit 3), sent again by a rerun', async () => {
    const file = tmp.file("refused.csv");
    writeFileSync(file, "email,firstName\nada@example.com,Ada\n");
    const body = { success: false, errors: ["The payload could not be processed"] };
    const { server } = await serve(() => ({ body }));
    const config = tmp.fresh();
    const run = () =>
      runCli(["employees", "upsert", file, "-o", "json"], {
        env: { ...env(server), ASSESS_CONFIG_DIR: config },
      });
    const r = await run();
    expect(r.code, r.stderr).toBe(3);
    expect(JSON.parse(r.stdout)).toMatchObject({ rows: 1, failed: 1, uncertain: 0, chunks: { failed: 1 } });
    expect(r.stderr).toMatch(/The payload could not be processed/);
    // Refused, not of unknown outcome: a rerun sends the row again.
    expect(JSON.parse((await run()).stdout)).toMatchObject({ sent: 1, alreadyDone: 0, failed: 1 });
  });

  it('`callbacks resend` answered {"result":false,…}: its ids refused (exit 3), none said queued', async () => {
    const body = { result: false, errors: ["Callbacks are disabled for this account"] };
    const { server } = await serve(() => ({ body }));
    const r = await assess(server, ["callbacks", "resend", "50123", "-o", "json"]);
    expect(r.code, r.stderr).toBe(3);
    expect(JSON.parse(r.stdout)).toMatchObject({ rows: 1, failed: 1, uncertain: 0, chunks: { failed: 1 } });
    expect(r.stderr).toMatch(/Callbacks are disabled for this account/);
  });
});

describe("reports pdf answered with JSON instead of the PDF", () => {
  const pdf = Buffer.from("%PDF-1.4\n1 0 obj\n<<>>\nendobj\ntrailer\n<<>>\n%%EOF\n");

  it("the PDF inside as base64 is saved as the PDF", async () => {
    const { server } = await serve(() => ({
      contentType: "application/json; charset=utf-8",
      body: { testInvitationId: 50123, fileName: "report.pdf", fileContent: pdf.toString("base64") },
    }));
    const out = tmp.file("base64.pdf");
    const r = await assess(server, ["reports", "pdf", "50123", "--out", out]);
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(out)).toEqual(pdf);
  });

  it("a link to the PDF is no PDF: exit 1 naming the link, no file written", async () => {
    const { server } = await serve(() => ({
      body: { testInvitationId: 50123, pdfReportUrl: "https://example.com/reports/50123.pdf" },
    }));
    const out = tmp.file("link.pdf");
    const r = await assess(server, ["reports", "pdf", "50123", "--out", out]);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toMatch(/https:\/\/example\.com\/reports\/50123\.pdf/);
    expect(existsSync(out)).toBe(false);
  });
});

describe("an employee's skills answered as a bare list", () => {
  it("employees skills shows each skill of the list, not 'No skills recorded'", async () => {
    const body = [
      { skillName: "Java", level: 3 },
      { skillName: "SQL", level: 2 },
    ];
    const { server } = await serve(() => ({ body }));
    const r = await assess(server, ["employees", "skills", "501"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/501\t\tJava\t3/);
    expect(r.stdout).toMatch(/501\t\tSQL\t2/);
    expect(r.stderr).not.toMatch(/No skills recorded/);
  });

  it("employees skill-gap shows each gap of the list", async () => {
    const body = [{ skillName: "Java", requiredLevel: 4, currentLevel: 1 }];
    const { server } = await serve(() => ({ body }));
    const r = await assess(server, ["employees", "skill-gap", "501"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/Java\t4\t1\t3\tgap/);
  });
});

describe("an employee record whose id is named id", () => {
  it("employees list shows it in the ID column", async () => {
    const body = { items: [{ id: 501, email: "ada@example.com", firstName: "Ada" }], hasNextPage: false };
    const { server } = await serve(() => ({ body }));
    const r = await assess(server, ["employees", "list"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.split("\n")[1]).toMatch(/^501\tAda\tada@example\.com/);
  });
});

describe("a write answered with a message only, or nothing", () => {
  it("users create / update / deactivate show the user as sent, not a row of empty columns", async () => {
    const { server } = await serve(() => ({ body: { message: "Done successfully" } }));
    const create = await assess(server, [
      "users",
      "create",
      "--email",
      "grace@example.com",
      "--name",
      "Grace",
    ]);
    expect(create.code, create.stderr).toBe(0);
    expect(create.stdout.split("\n")[1]).toBe("grace@example.com\tGrace\t\t");
    const update = await assess(server, [
      "users",
      "update",
      "--email",
      "grace@example.com",
      "--business-unit",
      "7",
    ]);
    expect(update.code, update.stderr).toBe(0);
    expect(update.stdout.split("\n")[1]).toBe("grace@example.com\t7");
    const off = await assess(server, ["users", "deactivate", "--email", "grace@example.com"]);
    expect(off.code, off.stderr).toBe(0);
    expect(off.stdout.split("\n")[1]).toBe("grace@example.com\t\t\tInactive");
  });
});

describe("an employee write answered with nothing", () => {
  it("employees status, add-certificate, assign-learning and upload-resume show what was sent, not blank lines", async () => {
    const { server } = await serve(() => ({ status: 204, contentType: "" }));
    const status = await assess(server, ["employees", "status", "501", "Inactive"]);
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).toBe("employeeId\tstatus\n501\tInactive\n");
    const cert = await assess(server, [
      "employees",
      "add-certificate",
      "501",
      "--title",
      "AWS SA",
      "--issuer",
      "AWS",
    ]);
    expect(cert.code, cert.stderr).toBe(0);
    expect(cert.stdout.split("\n")[1]).toMatch(/^\tAWS SA\tAWS\t/);
    const learning = await assess(server, ["employees", "assign-learning", "501", "--skill", "Java"]);
    expect(learning.code, learning.stderr).toBe(0);
    expect(learning.stdout).toBe("employeeId\tskills\n501\tJava\n");
    const resume = tmp.file("cv.pdf");
    writeFileSync(resume, "%PDF-1.4\n%%EOF\n");
    const upload = await assess(server, ["employees", "upload-resume", "501", resume]);
    expect(upload.code, upload.stderr).toBe(0);
    expect(upload.stdout.split("\n")[1]).toMatch(/^501\tcv\.pdf\t15\t/);
  });
});

describe("callbacks listen and a notification in another envelope", () => {
  it("takes one sent as a form, or as a list of one, as it takes one sent as a JSON object", async () => {
    const log = tmp.file("listen.ndjson");
    const cli = startLiveCli(["callbacks", "listen", "--port", "0", "--log", log], {
      ASSESS_CONFIG_DIR: tmp.fresh(),
      CI: "true",
    });
    try {
      const [, url] = await cli.waitFor("stderr", /Callback URL to use: (\S+)/);
      const send = (body: string, contentType: string) =>
        request(url!, { method: "POST", headers: { "content-type": contentType }, body }).then(
          async (res) => {
            await res.body.text();
            return res.statusCode;
          },
        );
      expect(await send("TestInvitationId=50125&Status=Complete", "application/x-www-form-urlencoded")).toBe(
        200,
      );
      expect(await send('[{"TestInvitationId":50126,"Status":"Complete"}]', "application/json")).toBe(200);
      const lines = await eventually(() => {
        const parsed = ndjson<{ testInvitationId: number; status: string }>(cli.stdout());
        return parsed.length >= 2 ? parsed : undefined;
      }, "two notification lines");
      expect(lines.map((line) => [line.testInvitationId, line.status])).toEqual([
        [50125, "Complete"],
        [50126, "Complete"],
      ]);
    } finally {
      await cli.stop();
    }
  });
});

describe("callbacks process: a 401 that names the ids in its message", () => {
  it("`callbacks resend` reports those ids as not found and queues the others (exit 3), not a key problem (exit 4)", async () => {
    const { server, seen } = await serve((_m, _p, index) =>
      index === 0
        ? { status: 401, body: { result: null, errors: ["Invalid testinvitationIds: 50123, 50124"] } }
        : { body: { result: { testinvitationIds: { successful: [50125], failed: [] } }, errors: null } },
    );
    const r = await assess(server, ["callbacks", "resend", "50123", "50124", "50125", "-o", "json"]);
    expect(r.code, r.stderr).toBe(3);
    expect(seen.map((s) => s.body)).toEqual([
      '{"testinvitationIds":[50123,50124,50125]}',
      '{"testinvitationIds":[50125]}',
    ]);
    const summary = JSON.parse(r.stdout);
    expect(summary.failures.map((f: { label: string }) => f.label)).toEqual(["50123", "50124"]);
  });

  it("a 401 whose message names no id sent is still the key's (exit 4)", async () => {
    const { server } = await serve(() => ({
      status: 401,
      body: { statusCode: 401, message: "Access denied due to invalid subscription key 4011" },
    }));
    const r = await assess(server, ["callbacks", "resend", "50123"]);
    expect(r.code, r.stderr).toBe(4);
  });
});
