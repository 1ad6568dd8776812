/**
 * The answers of writes, against a server that answers every request the same way: those API.md does not show
 * (cancel, reattempt: an empty 204, an id sent as a numeric string) read as what they are; and a 2xx answer that
 * cannot be read (empty, `{}`, text) is still a success (CLI.md: any 2xx is success), for the CLI and the SDK.
 */
import { afterEach, describe, expect, it } from "vitest";
import { type HostileServer, startFixedAnswer } from "../../fixtures/hostile/servers.js";
import { createClient } from "../../src/sdk/index.js";
import { runCli, useTempDir } from "../helpers/cli.js";

const tmp = useTempDir("assess-write-answers-");
const servers: HostileServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function against(answer: Parameters<typeof startFixedAnswer>[0], argv: string[]) {
  const server = await startFixedAnswer(answer);
  servers.push(server);
  const env = {
    ASSESS_API_KEY: "write-answers-key-0000",
    ASSESS_BASE_URL: server.url,
    ASSESS_CONFIG_DIR: tmp.fresh(),
    CI: "true",
  };
  return { r: await runCli(argv, { env }), server };
}

describe("the answers of writes", () => {
  it("`invite cancel` answered 204 No Content: the cancelled invitation, with no empty `result` column", async () => {
    const { r, server } = await against({ status: 204, body: "" }, ["invite", "cancel", "50123"]);
    expect(r.code, r.stderr).toBe(0);
    expect(server.requests.map((request) => `${request.method} ${request.url}`)).toEqual([
      "POST /v3/invitations/50123/cancel",
    ]);
    expect(r.stdout).toBe("INVITATION\tSTATUS\n50123\tcancelled\n");
  });

  it("`invite reattempt` answered with the same id as a numeric string: no new invitation is claimed", async () => {
    const body = JSON.stringify({ testInvitationId: "50123", testUrl: "https://example.com/t/abc" });
    const { r } = await against({ body }, ["invite", "reattempt", "50123"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/Reattempt allowed for invitation 50123/);
    expect(r.stderr).not.toMatch(/new invitation/);
  });
});

const WRITES = [
  {
    argv: ["invite", "send", "--test", "1001", "--email", "ada@example.com", "--name", "Ada"],
    request: "POST /v3/tests/1001/invite",
    check: /Check the invitations of test 1001 in the service's web application before running it again/,
  },
  {
    argv: ["users", "create", "--email", "grace@example.com", "--name", "Grace"],
    request: "POST /v3/accounts/user/create",
    check: /Check the account's users in the service's web application before running it again/,
  },
  {
    argv: [
      ...["links", "create", "--test", "1001", "--name", "Campus", "--type", "email"],
      ...["--schedule", "validityindays", "--validity-days", "7", "--timezone", "1"],
    ],
    request: "POST /v3/tests/1001/testlinks",
    check: /Check the links of the test \(`assess links list --test 1001`\) before running it again/,
  },
];
const UNREAD = [
  { name: "an empty body", body: "", contentType: "application/json", json: "", problem: /it was empty/ },
  { name: "{}", body: "{}", contentType: "application/json", json: "{}\n", problem: /\{\}/ },
  { name: "plain text", body: "Done", contentType: "text/plain", json: '"Done"\n', problem: /not JSON/ },
];

describe("a write answered 201 with an answer that cannot be read is a success", () => {
  for (const write of WRITES) {
    for (const answer of UNREAD) {
      it(`\`${write.argv.slice(0, 2).join(" ")}\` answered 201 with ${answer.name}: exit 0, a warning, sent once`, async () => {
        const fixed = { status: 201, body: answer.body, contentType: answer.contentType };
        const { r, server } = await against(fixed, write.argv);
        expect(r.code, r.stderr).toBe(0);
        expect(server.requests.map((request) => `${request.method} ${request.url}`)).toEqual([write.request]);
        expect(r.stderr).toMatch(
          new RegExp(
            `warning: The service accepted ${write.request} \\(HTTP 201\\): it was done, but its answer could not be read`,
          ),
        );
        expect(r.stderr).toMatch(answer.problem);
        expect(r.stderr).toMatch(write.check);
        expect(r.stderr).not.toMatch(/✓|^error/m);
        expect(r.stdout).toBe("");
        const json = await against(fixed, [...write.argv, "-o", "json"]);
        expect(json.r.code, json.r.stderr).toBe(0);
        expect(json.r.stdout).toBe(answer.json);
      });
    }
  }

  it("a read answered with text it cannot read still fails (exit 1): it has nothing to show", async () => {
    const { r } = await against({ body: "Done", contentType: "text/plain" }, ["tests", "get", "1001"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/is not JSON/);
  });

  it("the SDK resolves a write answered 201 with an answer it cannot read to the answer as it came", async () => {
    for (const answer of UNREAD) {
      const server = await startFixedAnswer({
        status: 201,
        body: answer.body,
        contentType: answer.contentType,
      });
      servers.push(server);
      const warnings: string[] = [];
      const client = createClient({
        apiKey: "write-answers-key-0000",
        baseUrl: server.url,
        env: { ASSESS_CONFIG_DIR: tmp.fresh() },
        onRetry: (message) => warnings.push(message),
      });
      try {
        const invitation = await client.invitations.create(1001, {
          emailId: "ada@example.com",
          fullName: "Ada",
        });
        expect(JSON.stringify(invitation) ?? "").toBe(answer.json.trim());
        expect(warnings).toEqual([
          expect.stringMatching(/accepted POST \/v3\/tests\/1001\/invite \(HTTP 201\)/),
        ]);
        expect(server.requests).toHaveLength(1);
      } finally {
        await client.close();
      }
    }
  });
});
