/**
 * callbacks resend against a 401 that names a new id each time, never one that was sent: a chunk is sent once,
 * and once more only without ids of its own the service refused, so the requests are bounded by what is sent.
 */
import { afterEach, describe, expect, it } from "vitest";
import { type HostileServer, startHostileServer } from "../../fixtures/hostile/servers.js";
import { runCli, useTempDir } from "../helpers/cli.js";

const tmp = useTempDir("assess-resend-401-");
const servers: HostileServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

/** Every POST answered 401 naming `named(bodyIds, index)`; the ids of each request kept in `bodies`. */
async function refusing(named: (ids: number[], index: number) => number[]) {
  const bodies: number[][] = [];
  const server = await startHostileServer(({ req, res, index }) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const ids =
        (JSON.parse(Buffer.concat(chunks).toString() || "{}") as { testinvitationIds?: number[] })
          .testinvitationIds ?? [];
      bodies.push(ids);
      const errors = ["Invalid testinvitationIds", ...named(ids, index)];
      res
        .writeHead(401, { "content-type": "application/json" })
        .end(JSON.stringify({ result: null, errors }));
    });
  });
  servers.push(server);
  return { server, bodies };
}

async function resend(server: HostileServer, ids: string[]) {
  const started = Date.now();
  const r = await runCli(["callbacks", "resend", ...ids, "--json"], {
    env: {
      ASSESS_CONFIG_DIR: tmp.file(`config-${Math.random().toString(36).slice(2)}`),
      ASSESS_API_KEY: "resend-key-0000",
      ASSESS_BASE_URL: server.url,
      CI: "true",
    },
  });
  return { ...r, ms: Date.now() - started };
}

interface Summary {
  failed: number;
  failures: Array<{ label: string; error: string }>;
  unmatched: string[];
}

describe("callbacks resend against a hostile 401", () => {
  it("a new unrelated id named each time: one request, the three ids reported, exit 3", async () => {
    const { server, bodies } = await refusing((_, index) => [900_000 + index]);
    const r = await resend(server, ["7001", "7002", "7003"]);
    expect(r.code, r.stderr).toBe(3);
    expect(bodies).toEqual([[7001, 7002, 7003]]);
    const summary = r.json<Summary>();
    expect(summary.failed).toBe(3);
    expect(
      summary.failures.every((f) => /refused the request \(401\) without naming this id/.test(f.error)),
    ).toBe(true);
    expect(summary.unmatched).toEqual(["the service named id 900000, which was not sent"]);
    expect(r.ms).toBeLessThan(30_000);
  }, 60_000);

  it("one id of the chunk, then another, then another: each id is sent at most twice (two requests)", async () => {
    // Names the first id of whatever it is sent, and an unrelated one.
    const { server, bodies } = await refusing((ids, index) => [ids[0]!, 800_000 + index]);
    const r = await resend(server, ["7001", "7002", "7003", "7004"]);
    expect(r.code, r.stderr).toBe(3);
    expect(bodies).toEqual([
      [7001, 7002, 7003, 7004],
      [7002, 7003, 7004],
    ]);
    const summary = r.json<Summary>();
    expect(summary.failures.map((f) => [f.label, /not found in this account/.test(f.error)])).toEqual([
      ["7001", true],
      ["7002", true],
      ["7003", false],
      ["7004", false],
    ]);
    expect(r.ms).toBeLessThan(30_000);
  }, 60_000);
});
