/**
 * Ids and numbers the service sends as strings (as an ASP.NET service sends its Integer64s) are read: the CLI
 * (main, in-process) behind a proxy that turns every number of the sandbox's answers into a string.
 */
import { writeFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli, useTempDir, useTestEnv } from "../helpers/cli.js";

const t = useTestEnv();
const tmp = useTempDir("assess-first-week-b-");

/** Every number of a JSON value as a string, as an ASP.NET service sends its Integer64s. */
function stringifyNumbers(value: unknown): unknown {
  if (typeof value === "number") return String(value);
  if (Array.isArray(value)) return value.map(stringifyNumbers);
  if (value !== null && typeof value === "object")
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, stringifyNumbers(v)]));
  return value;
}

/** A proxy in front of the sandbox whose JSON answers carry every number as a string. */
async function stringNumbersProxy(target: URL): Promise<{ origin: string; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const upstream = http.request(
        { host: target.hostname, port: target.port, path: req.url, method: req.method, headers: req.headers },
        (answer) => {
          const body: Buffer[] = [];
          answer.on("data", (chunk: Buffer) => body.push(chunk));
          answer.on("end", () => {
            let text = Buffer.concat(body).toString("utf8");
            try {
              text = JSON.stringify(stringifyNumbers(JSON.parse(text)));
            } catch {
              // not JSON (a PDF, text): passed on as it came
            }
            const headers = { ...answer.headers };
            delete headers["content-length"];
            res.writeHead(answer.statusCode ?? 502, headers);
            res.end(text);
          });
        },
      );
      upstream.end(Buffer.concat(chunks));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

describe("ids and numbers the service sends as strings are read", () => {
  let proxy: Awaited<ReturnType<typeof stringNumbersProxy>>;
  let env: Record<string, string>;
  beforeAll(async () => {
    proxy = await stringNumbersProxy(new URL(t.sandbox.url));
    env = {
      ...t.env,
      ASSESS_BASE_URL: `${proxy.origin}/api`,
      ASSESS_SKILLS_BASE_URL: `${proxy.origin}/skills`,
      ASSESS_CONFIG_DIR: tmp.fresh(),
    };
  });
  afterAll(() => proxy.close());

  it('`tests list --json`: exit 0, and "testId": "1001" stays the string it was sent as', async () => {
    const r = await runCli(["tests", "list", "--json"], { env });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const tests = r.json<Array<{ testId: unknown }>>();
    expect(tests[0]?.testId).toBe("1001");
  });

  it("`attempts list` (tsv) and `links list`: exit 0 with the ids in their columns", async () => {
    const attempts = await runCli(["attempts", "list", "--from", "30d", "--to", "now"], { env });
    expect(attempts.stderr).not.toMatch(/unexpected|error:/);
    expect(attempts.code).toBe(0);
    const lines = attempts.stdout.trim().split("\n");
    expect(lines[0]).toMatch(/^INVITATION\tTEST\t/);
    expect(lines.length).toBeGreaterThan(1);
    expect(lines[1]).toMatch(/^\d+\t10\d\d\t/);
    const links = await runCli(["links", "list", "--test", "1001", "--json"], { env });
    expect(links.code).toBe(0);
    expect(typeof links.json<Array<{ testLinkId: unknown }>>()[0]?.testLinkId).toBe("string");
  });

  it("`reports get` and `callbacks resend --from --to` (ids read from the listing are sent as numbers)", async () => {
    const listed = await runCli(["attempts", "list", "--from", "30d", "--to", "now", "--json"], { env });
    const id = listed.json<Array<{ testInvitationId: string }>>()[0]!.testInvitationId;
    const report = await runCli(["reports", "get", id, "--json"], { env });
    expect(report.code).toBe(0);
    expect(report.json<{ scorePercentage: unknown }>().scorePercentage).toMatch(/^\d+(\.\d+)?$/);
    // The seeded attempts have no callback URL: the sandbox queues none, whoever asks. Through the proxy the
    // run must go exactly as it goes against the sandbox itself.
    const argv = ["callbacks", "resend", "--from", "30d", "--to", "now", "--json", "--restart"];
    const direct = await runCli(argv, { env: { ...t.env, ASSESS_CONFIG_DIR: tmp.fresh() } });
    const mark = t.sandbox.requests.length;
    const resend = await runCli(argv, { env });
    expect(resend.stderr).not.toMatch(/unexpected|error:/);
    expect(resend.code).toBe(direct.code);
    const counts = (r: typeof direct) => {
      const { rows, sent, failed, chunks } = r.json<Record<string, unknown>>();
      return { rows, sent, failed, chunks };
    };
    expect(counts(resend)).toEqual(counts(direct));
    const sent = t.sandbox.requests
      .slice(mark)
      .filter((r) => r.path === "/v3/callbacks/process")
      .flatMap((r) => (r.body as { testinvitationIds: unknown[] }).testinvitationIds);
    expect(sent.length).toBe(counts(direct).rows);
    expect(sent.every((value) => typeof value === "number")).toBe(true);
  });

  it("`links update` writes back the link's numbers it read as strings as numbers (timeZoneId, invitationValidityInDays)", async () => {
    const mark = t.sandbox.requests.length;
    const r = await runCli(["links", "update", "3001", "--test", "1001", "--name", "Campus drive 2027"], {
      env,
    });
    expect(r.stderr).not.toMatch(/Invalid request|error:/);
    expect(r.code).toBe(0);
    const sent = t.sandbox.requests.slice(mark).find((request) => request.method === "POST");
    expect(sent?.body).toMatchObject({
      testLinkName: "Campus drive 2027",
      invitationSchedule: {
        scheduleType: "validityindays",
        scheduleDetails: { invitationValidityInDays: 7, timeZoneId: 1720 },
      },
    });
  });

  it("`tests settings set` writes back the settings it read as strings as the Integers of API.md 2.2", async () => {
    const mark = t.sandbox.requests.length;
    const r = await runCli(["tests", "settings", "set", "1001", "--copy-paste", "yes"], { env });
    expect(r.code, r.stderr).toBe(0);
    const sent = t.sandbox.requests.slice(mark).find((request) => request.method === "POST");
    const body = sent?.body as Record<string, unknown>;
    expect(body.copyPaste).toBe(1);
    expect(Object.keys(body).length).toBeGreaterThan(3);
    const notNumbers = Object.entries(body).filter(
      ([name, value]) => name !== "testName" && name !== "testAliasName" && typeof value !== "number",
    );
    expect(notNumbers).toEqual([]);
  });

  it("`callbacks reconcile`: an attempt listed with a string id whose notification the log holds is not missing", async () => {
    const listed = await runCli(["attempts", "list", "--from", "30d", "--to", "now", "--json"], { env });
    const ids = listed.json<Array<{ testInvitationId: string }>>().map((a) => a.testInvitationId);
    expect(ids.length).toBeGreaterThan(1);
    const log = tmp.file("string-ids.ndjson");
    const [missed, ...heard] = ids;
    writeFileSync(
      log,
      heard.map((id) => `${JSON.stringify({ TestInvitationId: id, Status: "Completed" })}\n`).join(""),
    );
    const r = await runCli(["callbacks", "reconcile", "--from", "30d", "--log", log, "--dry-run", "--json"], {
      env,
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.json()).toEqual({
      attempts: ids.length,
      received: heard.length,
      missing: [Number(missed)],
      resent: 0,
      alreadyQueued: 0,
      noCallbackUrl: [],
      invalidIds: 0,
    });
  });
});
