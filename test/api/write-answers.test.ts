/**
 * Writes whose answer API.md does not show (cancel, reattempt): an empty 204 and an id sent as a numeric
 * string are read as what they are, against a server that answers every request the same way.
 */
import { afterEach, describe, expect, it } from "vitest";
import { type HostileServer, startFixedAnswer } from "../../fixtures/hostile/servers.js";
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
    expect(r.stdout).toBe("testInvitationId\tstatus\n50123\tcancelled\n");
  });

  it("`invite reattempt` answered with the same id as a numeric string: no new invitation is claimed", async () => {
    const body = JSON.stringify({ testInvitationId: "50123", testUrl: "https://example.com/t/abc" });
    const { r } = await against({ body }, ["invite", "reattempt", "50123"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/Reattempt allowed for invitation 50123/);
    expect(r.stderr).not.toMatch(/new invitation/);
  });
});
