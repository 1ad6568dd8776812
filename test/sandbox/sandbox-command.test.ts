/**
 * Issue 24, "The first week", items 4, 6, 7, 8 and 12, through the built CLI (`node bin/assess.js` in a
 * child process, stdio on pipes) against the sandbox. Item 3 (the package's name) is test/docs/pack.test.ts
 * and test/sdk/pack.test.ts; items 10, 11 and 13 are first-week-b2.test.ts.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runBin, startTestEnv, type TestEnv } from "../helpers/cli.js";

const ROOT = join(import.meta.dirname, "..", "..");
const BIN = join(ROOT, "bin", "assess.js");

let t: TestEnv;
let dir: string;
beforeAll(async () => {
  t = await startTestEnv();
  dir = mkdtempSync(join(tmpdir(), "assess-first-week-b-"));
});
afterAll(async () => {
  await t.close();
  rmSync(dir, { recursive: true, force: true });
});

let configs = 0;
const freshConfig = () => join(dir, `config-${configs++}`);

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

describe("item 4: ids and numbers the service sends as strings are read", () => {
  let proxy: Awaited<ReturnType<typeof stringNumbersProxy>>;
  let env: Record<string, string>;
  beforeAll(async () => {
    proxy = await stringNumbersProxy(new URL(t.sandbox.url));
    env = {
      ...t.env,
      ASSESS_BASE_URL: `${proxy.origin}/api`,
      ASSESS_SKILLS_BASE_URL: `${proxy.origin}/skills`,
      ASSESS_CONFIG_DIR: freshConfig(),
    };
  });
  afterAll(() => proxy.close());

  it('`tests list --json`: exit 0, and "testId": "1001" stays the string it was sent as', async () => {
    const r = await runBin(["tests", "list", "--json"], { env });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const tests = r.json<Array<{ testId: unknown }>>();
    expect(tests[0]?.testId).toBe("1001");
  });

  it("`attempts list` (tsv) and `links list`: exit 0 with the ids in their columns", async () => {
    const attempts = await runBin(["attempts", "list", "--from", "30d", "--to", "now"], { env });
    expect(attempts.stderr).not.toMatch(/unexpected|error:/);
    expect(attempts.code).toBe(0);
    const lines = attempts.stdout.trim().split("\n");
    expect(lines[0]).toMatch(/^INVITATION\tTEST\t/);
    expect(lines.length).toBeGreaterThan(1);
    expect(lines[1]).toMatch(/^\d+\t10\d\d\t/);
    const links = await runBin(["links", "list", "--test", "1001", "--json"], { env });
    expect(links.code).toBe(0);
    expect(typeof links.json<Array<{ testLinkId: unknown }>>()[0]?.testLinkId).toBe("string");
  });

  it("`reports get` and `callbacks resend --from --to` (ids read from the listing are sent as numbers)", async () => {
    const listed = await runBin(["attempts", "list", "--from", "30d", "--to", "now", "--json"], { env });
    const id = listed.json<Array<{ testInvitationId: string }>>()[0]!.testInvitationId;
    const report = await runBin(["reports", "get", id, "--json"], { env });
    expect(report.code).toBe(0);
    expect(report.json<{ scorePercentage: unknown }>().scorePercentage).toMatch(/^\d+(\.\d+)?$/);
    // The seeded attempts have no callback URL: the sandbox queues none, whoever asks. Through the proxy the
    // run must go exactly as it goes against the sandbox itself.
    const argv = ["callbacks", "resend", "--from", "30d", "--to", "now", "--json", "--restart"];
    const direct = await runBin(argv, { env: { ...t.env, ASSESS_CONFIG_DIR: freshConfig() } });
    const mark = t.sandbox.requests.length;
    const resend = await runBin(argv, { env });
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
});

describe("item 6: a busy port is said as such (exit 2), never as a bug", () => {
  let busy: http.Server;
  let port: number;
  beforeAll(async () => {
    busy = http.createServer();
    await new Promise<void>((resolve) => busy.listen(0, "127.0.0.1", resolve));
    port = (busy.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => busy.close(() => resolve())));

  it.each([
    ["sandbox", ["sandbox"]],
    ["callbacks listen", ["callbacks", "listen"]],
  ])("`assess %s --port <busy>`", async (_name, argv) => {
    const r = await runBin([...argv, "--port", String(port)], { env: { ASSESS_CONFIG_DIR: freshConfig() } });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`error: Cannot listen on 127.0.0.1:${port}: port ${port} is in use`);
    expect(r.stderr).toMatch(/hint: Pick another --port \(--port 0 takes any free one\)/);
    expect(r.stderr).not.toMatch(/bug|EADDRINUSE/);
  });
});

describe("item 7: the one-command sandbox finishes attempts; the SDK works against `assess sandbox`", () => {
  it("`assess --sandbox sandbox complete <id>` completes an attempt of the embedded sandbox", async () => {
    const env = { ASSESS_CONFIG_DIR: freshConfig() };
    const send = await runBin(
      [
        "--sandbox",
        "invite",
        "send",
        "--test",
        "1001",
        "--email",
        "seven@example.com",
        "--name",
        "Seven",
        "--json",
      ],
      { env },
    );
    expect(send.code).toBe(0);
    const id = String(send.json<{ testInvitationId: number }>().testInvitationId);
    const before = await runBin(["--sandbox", "reports", "get", id, "--json"], { env });
    expect(before.code).not.toBe(0);
    const done = await runBin(["--sandbox", "sandbox", "complete", id, "--status", "TestLeft"], { env });
    expect(done.stderr).not.toMatch(/Cannot reach/);
    expect(done.stderr).toContain(`✓ Attempt ${id} finished with status TestLeft`);
    expect(done.code).toBe(0);
    const report = await runBin(["--sandbox", "reports", "get", id, "--json"], { env });
    expect(report.code).toBe(0);
    expect(report.json<{ candidateEmail: string }>().candidateEmail).toBe("seven@example.com");
  });

  it("createClient of the built SDK against `assess sandbox --port 0 --json`, as the README says", async () => {
    const child = spawn(process.execPath, [BIN, "sandbox", "--port", "0", "--json"], {
      env: { PATH: process.env.PATH, NO_COLOR: "1", ASSESS_CONFIG_DIR: freshConfig() },
      stdio: ["ignore", "pipe", "pipe"],
    });
    try {
      let text = "";
      const started = await new Promise<{ url: string; skillsUrl: string; keys: { acme: string } }>(
        (resolve, reject) => {
          child.stdout.on("data", (chunk: Buffer) => {
            text += chunk.toString();
            try {
              resolve(JSON.parse(text));
            } catch {
              // not whole yet
            }
          });
          child.on("exit", (code) => reject(new Error(`assess sandbox exited with ${code}`)));
        },
      );
      const sdk = (await import(
        pathToFileURL(join(ROOT, "dist", "sdk.mjs")).href
      )) as typeof import("../../src/sdk/index.js");
      const client = sdk.createClient({
        apiKey: started.keys.acme,
        baseUrl: started.url,
        skillsBaseUrl: started.skillsUrl,
        env: {},
      });
      const invitation = await client.invitations.create(1002, {
        emailId: "sdk.seven@example.com",
        fullName: "Sdk Seven",
      });
      const done = await runBin(
        ["sandbox", "complete", String(invitation.testInvitationId), "--url", started.url],
        { env: { ASSESS_CONFIG_DIR: freshConfig() } },
      );
      expect(done.code).toBe(0);
      const report = await client.reports.get(invitation.testInvitationId);
      expect(report.candidateEmail).toBe("sdk.seven@example.com");
      await client.close();
    } finally {
      child.kill("SIGINT");
    }
    const readme = readFileSync(join(ROOT, "README.md"), "utf8");
    expect(readme).toContain("assess sandbox --port 4010 &");
    expect(readme).toMatch(/createClient\(\{\n {2}apiKey: "sbx-acme-/);
  });
});

describe("item 8: attempts list takes --test and --all, and checks --state", () => {
  it("--test 1002 keeps that test's attempts; --all lists the same as the default", async () => {
    const all = await runBin(["attempts", "list", "--from", "90d", "--to", "now", "--json"], { env: t.env });
    const one = await runBin(
      ["attempts", "list", "--from", "90d", "--to", "now", "--test", "1002", "--json"],
      {
        env: t.env,
      },
    );
    const both = await runBin(
      ["attempts", "list", "--from", "90d", "--to", "now", "--test", "1002,1003", "--all", "--json"],
      { env: t.env },
    );
    expect([all.code, one.code, both.code]).toEqual([0, 0, 0]);
    type Attempt = { testId: number };
    const every = all.json<Attempt[]>();
    const kept = one.json<Attempt[]>();
    expect(kept.length).toBeGreaterThan(0);
    expect(kept.every((a) => a.testId === 1002)).toBe(true);
    expect(kept.length).toBe(every.filter((a) => a.testId === 1002).length);
    expect(both.json<Attempt[]>().length).toBe(every.filter((a) => [1002, 1003].includes(a.testId)).length);
    const allFlag = await runBin(["attempts", "list", "--from", "90d", "--to", "now", "--all", "--json"], {
      env: t.env,
    });
    expect(allFlag.json<Attempt[]>()).toEqual(every);
  });

  it("--test of another account's test is refused (exit 4); --state foo is refused before any request (exit 2)", async () => {
    const other = await runBin(["attempts", "list", "--from", "7d", "--to", "now", "--test", "2001"], {
      env: t.env,
    });
    expect(other.code).toBe(4);
    const mark = t.sandbox.requests.length;
    const state = await runBin(["attempts", "list", "--from", "7d", "--to", "now", "--state", "foo"], {
      env: t.env,
    });
    expect(state.code).toBe(2);
    expect(state.stderr).toMatch(/--state.*'foo' is invalid\. Allowed choices are completed/);
    expect(t.sandbox.requests.slice(mark)).toEqual([]);
  });
});

describe("item 12: a --json error carries the sentence stderr shows", () => {
  it("`links create --no-input --json` missing values: the JSON message is the whole sentence", async () => {
    const r = await runBin(["links", "create", "--test", "1001", "--no-input", "--json"], { env: t.env });
    expect(r.code).toBe(2);
    const sentence = /^error: (.*)$/m.exec(r.stderr)?.[1];
    expect(sentence).toMatch(/^Missing --name <name>, .*--timezone <id>$/);
    const json = JSON.parse(r.stderr.split("\n").find((line) => line.startsWith("{"))!) as {
      error: { messages: string[] };
    };
    expect(json.error.messages).toEqual([sentence]);
  });
});
