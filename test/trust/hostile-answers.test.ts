/**
 * Hostile answers: the built CLI, spawned as a user runs it (in-process, `main`, where only what it prints is
 * checked), against the small hostile servers of fixtures/hostile/servers.ts on 127.0.0.1.
 * - an answer without end, one that trickles, one of 500 MB: each attempt has one deadline
 *   (`--timeout`) covering the headers and the whole body, and an answer is read up to a cap (32 MiB; 256 MiB
 *   for a PDF, streamed to disk). Exit 1 naming the limit hit, not before the deadline, with peak
 *   memory measured (the process's own maximum RSS, read at its exit) and bounded, the answer never downloaded again.
 * - a 2xx answer that echoes the API key shows `****` and its last four, in every format, `assess api`,
 *   its headers and --debug.
 * - an HTML login page, JSON cut short or plain words with status 200 are said to be so, with the
 *   page's title and the first line (escaped), exit 1, and the hint of how to see the raw answer.
 * Everywhere: no stack trace, and the canary key in no output.
 */
import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import {
  type HostileServer,
  LOGIN_TITLE,
  startEndlessStream,
  startFixedAnswer,
  startHeaderEcho,
  startHostileServer,
  startHtmlPage,
  startHugeBody,
  startTrickle,
  startTruncatedJson,
} from "../../fixtures/hostile/servers.js";
import { SANDBOX_KEYS } from "../../src/sandbox/index.js";
import { ROOT } from "../bulk/helpers.js";
import { type RunResult, runBin, runCli, useTempDir } from "../helpers/cli.js";

const CANARY = "sbx-canary-0d15ea5e-7f3a9c21";
const MiB = 1024 * 1024;
/** Peak resident memory allowed to the CLI while a server pushes far more than that. */
const RSS_BOUND = 200 * MiB;

const tmp = useTempDir("assess-hostile-answers-");
const servers: HostileServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function serve(server: Promise<HostileServer>): Promise<HostileServer> {
  const started = await server;
  servers.push(started);
  return started;
}

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
  /** Peak resident set size of the CLI's process, in bytes. */
  peakRss: number;
}

let runs = 0;
/** Runs the built CLI against `server`, with the canary key, and measures its time and peak memory. */
async function assess(server: HostileServer, argv: string[], key = CANARY): Promise<Run> {
  const r = await runBin(argv, {
    env: {
      ASSESS_CONFIG_DIR: tmp.file(`config-${runs++}`),
      ASSESS_API_KEY: key,
      ASSESS_BASE_URL: server.url,
      ASSESS_SKILLS_BASE_URL: server.url,
    },
    peakMemory: true,
  });
  return { code: r.code, stdout: r.stdout, stderr: r.stderr, ms: r.ms, peakRss: (r.peakMiB ?? 0) * MiB };
}

/**
 * The same in-process (`main`), for what a run prints: where neither its memory, its time nor its stack is
 * what is checked.
 */
function said(server: HostileServer, argv: string[], key = CANARY): Promise<RunResult> {
  return runCli(argv, {
    env: {
      ASSESS_CONFIG_DIR: tmp.file(`config-${runs++}`),
      ASSESS_API_KEY: key,
      ASSESS_BASE_URL: server.url,
      ASSESS_SKILLS_BASE_URL: server.url,
    },
  });
}

/** What every run must show, whatever the server did: no stack trace, no key. */
function expectClean(r: Pick<Run, "stdout" | "stderr">, keys = [CANARY]): void {
  expect(r.stderr, r.stderr).not.toMatch(/^\s+at .+:\d+:\d+\)?$/m);
  expect(r.stderr).not.toMatch(/looks like a bug/);
  for (const key of keys) {
    expect(r.stdout.includes(key), `stdout holds the key ${key.slice(0, 8)}…`).toBe(false);
    expect(r.stderr.includes(key), `stderr holds the key ${key.slice(0, 8)}…`).toBe(false);
  }
}

const measured: string[] = [];
afterAll(() => {
  if (measured.length > 0) console.log(["Hostile answers (peak RSS, time):", ...measured].join("\n  "));
});
function note(what: string, r: Run, server?: HostileServer): void {
  const pushed = server ? `, server pushed ${(server.bytesSent() / MiB).toFixed(1)} MiB` : "";
  measured.push(`${what}: exit ${r.code}, ${r.ms} ms, peak RSS ${(r.peakRss / MiB).toFixed(0)} MiB${pushed}`);
}

describe("every attempt has a deadline and every answer a cap", () => {
  it("an answer without end (as fast as it is read) stops at the 32 MiB cap: exit 1, bounded memory, not retried", async () => {
    const server = await serve(startEndlessStream());
    const r = await assess(server, ["tests", "list", "--timeout", "30000"]);
    note("endless stream, tests list", r, server);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toMatch(/the answer went past 32 MiB, the most assess reads of one answer/);
    expect(r.stderr).toMatch(/not retried/);
    expect(r.stdout).toBe("");
    expect(server.requests).toHaveLength(1);
    expect(server.bytesSent()).toBeGreaterThan(32 * MiB);
    expect(r.peakRss).toBeGreaterThan(0);
    expect(r.peakRss).toBeLessThan(RSS_BOUND);
    expectClean(r);
  });

  it("a stream of 64 KB every 50 ms meets the deadline: --timeout 3000 ends it at ~3 s, saying how much came", async () => {
    const server = await serve(startEndlessStream({ everyMs: 50 }));
    const r = await assess(server, ["tests", "list", "--timeout", "3000", "--retries", "0"]);
    note("slow endless stream, --timeout 3000 --retries 0", r, server);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toMatch(
      /the answer was still coming after 3000 ms, the --timeout \([\d.]+ MiB so far\)/,
    );
    expect(r.ms).toBeGreaterThanOrEqual(2900);
    expect(r.peakRss).toBeLessThan(RSS_BOUND);
    expect(server.requests).toHaveLength(1);
    expectClean(r);
  });

  it("a body trickling one byte a second fails at --timeout, not when the body would end (45 s)", async () => {
    const server = await serve(startTrickle());
    const r = await assess(server, ["tests", "list", "--timeout", "3000", "--retries", "0"]);
    note("trickle 1 byte/s, --timeout 3000 --retries 0", r, server);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toMatch(/still coming after 3000 ms, the --timeout \(\d+ bytes so far\)/);
    expect(r.stderr).toMatch(/--timeout and --retries adjust patience/);
    expect(r.ms).toBeGreaterThanOrEqual(2900);
    expectClean(r);
  });

  it("the deadline keeps the retry rules: a GET is tried again, a POST cut off is uncertain and sent once", async () => {
    const get = await serve(startTrickle());
    const g = await assess(get, ["tests", "list", "--timeout", "1500", "--retries", "1"]);
    expect(g.code, g.stderr).toBe(1);
    expect(g.stderr).toMatch(/retrying in/);
    expect(get.requests).toHaveLength(2);
    expect(g.ms).toBeGreaterThanOrEqual(2900);
    expectClean(g);

    const post = await serve(
      startTrickle({ body: '{"testInvitationId":1,"testInvitationUrl":"https://x"}' }),
    );
    const p = await assess(post, [
      ...["invite", "send", "--test", "1001", "--email", "ada@example.com", "--name", "Ada"],
      ...["--timeout", "1500", "--retries", "3"],
    ]);
    note("trickle on a POST (invite send), --timeout 1500 --retries 3", p, post);
    expect(p.code, p.stderr).toBe(1);
    expect(p.stderr).toMatch(/still coming after 1500 ms, the --timeout .*may have been processed/);
    expect(p.stderr).not.toMatch(/retrying in/);
    expect(post.requests).toHaveLength(1);
    expectClean(p);
  });

  it("a 500 MB answer announced by Content-Length is refused before it is read, and not downloaded again", async () => {
    const server = await serve(startHugeBody());
    const r = await assess(server, ["tests", "list"]);
    note("500 MB announced, tests list (default --retries 3)", r, server);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toMatch(/the answer announces 500 MiB \(Content-Length\), more than 32 MiB/);
    expect(server.requests).toHaveLength(1);
    expect(server.bytesSent()).toBeLessThan(100 * MiB);
    expect(r.peakRss).toBeLessThan(RSS_BOUND);
    expectClean(r);
  });

  it("a 500 MB answer sent chunked (no length) is cut at the cap, once, with the retries left unused", async () => {
    const server = await serve(startHugeBody({ announce: false }));
    const r = await assess(server, ["attempts", "list", "--from", "7d", "--to", "now"]);
    note("500 MB chunked, attempts list (a POST that only reads)", r, server);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toMatch(
      /went past 32 MiB, the most assess reads of one answer; stopped reading it, not retried/,
    );
    expect(server.requests).toHaveLength(1);
    expect(r.peakRss).toBeLessThan(RSS_BOUND);
    expectClean(r);
  });

  it("reports pdf streams to disk: an endless PDF stops at the 256 MiB cap, memory stays flat, no file is left", async () => {
    const server = await serve(startEndlessStream({ contentType: "application/pdf" }));
    const dir = mkdtempSync(tmp.file("pdf-"));
    const out = join(dir, "report.pdf");
    const r = await assess(server, ["reports", "pdf", "42", "--out", out, "--timeout", "60000"]);
    note("endless PDF, reports pdf --out", r, server);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toMatch(/the answer went past 256 MiB, the most assess downloads/);
    expect(server.requests).toHaveLength(1);
    expect(server.bytesSent()).toBeGreaterThan(256 * MiB);
    expect(r.peakRss).toBeLessThan(RSS_BOUND);
    expect(readdirSync(dir)).toEqual([]);
    expectClean(r);
  });

  const pdf = Buffer.concat([Buffer.from("%PDF-1.4\n"), Buffer.alloc(300_000, 7), Buffer.from("\n%%EOF\n")]);
  /** Serves `pdf`, but breaks its first answer off after 100 kB. */
  const breaksOffOnce = () =>
    serve(
      startHostileServer(async (x) => {
        x.res.writeHead(200, { "content-type": "application/pdf", "content-length": String(pdf.length) });
        if (x.index === 0) {
          await x.write(pdf.subarray(0, 100_000));
          x.res.destroy();
          return;
        }
        await x.write(pdf);
        x.res.end();
      }),
    );

  it("reports pdf: a download that breaks off is started over in a new file; the one saved is whole", async () => {
    const server = await breaksOffOnce();
    const dir = mkdtempSync(tmp.file("pdf-"));
    const out = join(dir, "report.pdf");
    const r = await assess(server, ["reports", "pdf", "42", "--out", out]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/retrying in/);
    expect(server.requests).toHaveLength(2);
    expect(readFileSync(out).equals(pdf)).toBe(true);
    expect(readdirSync(dir)).toEqual(["report.pdf"]);
    // Its behaviour with files is unchanged: an existing file is refused before anything is fetched.
    const again = await assess(server, ["reports", "pdf", "42", "--out", out]);
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/already exists/);
    expect(server.requests).toHaveLength(2);
    expectClean(r);
  });

  it("reports pdf --out -: bytes gone to stdout cannot be taken back, so a break is final and said so", async () => {
    const server = await breaksOffOnce();
    const r = await assess(server, ["reports", "pdf", "42", "--out", "-"]);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toMatch(/100000 bytes of the PDF had gone to stdout: what they make is not a whole PDF/);
    expect(r.stderr).not.toMatch(/retrying in/);
    expect(server.requests).toHaveLength(1);
    expectClean(r);
  });
});

describe("assess api --paginate against a service that ignores the page number", () => {
  it("stops at the repeated page with a warning, not in an endless loop that fills memory", async () => {
    // Every page is the same non-empty list with no hasNextPage or counts, and no page size was asked for.
    const server = await serve(startFixedAnswer({ body: '{"tests":[{"testId":1001},{"testId":1002}]}' }));
    const r = await said(server, ["api", "GET", "/v3/tests", "--paginate"]);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual([{ testId: 1001 }, { testId: 1002 }]);
    expect(r.stderr).toMatch(/Page 2 lists no record that an earlier page did not/);
    expect(server.requests.map((req) => req.url)).toEqual(["/v3/tests?pageNo=1", "/v3/tests?pageNo=2"]);
    expectClean(r);
  });
});

describe("a 2xx answer that echoes the key never prints it", () => {
  const echoed = (key: string) => `****${key.slice(-4)}`;
  const commands: string[][] = [
    ["api", "GET", "/v3/tests"],
    ["api", "GET", "/v3/tests", "-i"],
    ["api", "GET", "/v3/tests", "--paginate"],
    ["tests", "list"],
    ["tests", "list", "-o", "table"],
    ["tests", "list", "--json"],
    ["tests", "list", "-o", "ndjson"],
    ["tests", "list", "-o", "csv"],
    ["tests", "list", "--fields", "testId,testName,labels,request", "--debug"],
    ["tests", "get", "1001", "--json"],
    ["tests", "get", "1001"],
  ];
  for (const [name, key] of [
    ["a canary key", CANARY],
    ["the sandbox's demo key", SANDBOX_KEYS.acme],
  ] as const) {
    it(`${name}: every format, \`assess api\` with its headers, and --debug show ****${key.slice(-4)}`, async () => {
      const server = await serve(startHeaderEcho());
      for (const argv of commands) {
        const r = await said(server, argv, key);
        expect(r.code, `${argv.join(" ")}: ${r.stderr}`).toBe(0);
        expectClean(r, [key]);
        if (argv[0] === "api" || argv.includes("--json")) expect(r.stdout).toContain(echoed(key));
        if (argv.includes("-i")) expect(r.stdout).toContain(`x-echo-api-key: ${echoed(key)}`);
      }
      // Every request did carry the real key: only what comes back is redacted.
      expect(server.requests.every((req) => req.headers["x-api-key"] === key)).toBe(true);
    });
  }

  it("a same-origin redirect to a URL holding the key: --debug lines and the answer show it redacted", async () => {
    const server = await serve(startHeaderEcho({ redirect: true }));
    const r = await said(server, ["tests", "list", "--debug", "--json"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(`echoed=${encodeURIComponent(echoed(CANARY))}`);
    expectClean(r);
  });
});

describe("an answer that is not JSON is said to be so", () => {
  const hint = /hint: See the whole answer with `assess api GET \/v3\/tests\?pageNo=1&pageSize=\d+`/;

  it("an HTML login page with status 200: named by its title, its first line shown, exit 1, the raw hint kept", async () => {
    const server = await serve(startHtmlPage());
    for (const argv of [
      ["tests", "list"],
      ["tests", "list", "--json"],
    ]) {
      const r = await said(server, argv);
      expect(r.code, r.stderr).toBe(1);
      expect(r.stderr).toContain(
        `error: The service's answer (tests) is an HTML page titled "${LOGIN_TITLE}", not JSON; its first line: <!DOCTYPE html>`,
      );
      expect(r.stderr).toMatch(hint);
      expect(r.stderr).not.toMatch(/holds no list|Unexpected/);
      expect(r.stdout).toBe("");
      expectClean(r);
    }
    const record = await said(server, ["tests", "get", "1001"]);
    expect(record.code).toBe(1);
    expect(record.stderr).toMatch(/answer \(test\) is an HTML page titled/);
    expectClean(record);
  });

  it("an HTML page whose title and first line carry escape sequences: shown escaped, never run", async () => {
    const server = await serve(
      startHtmlPage({
        body: "<html>\u001b]0;pwned\u0007<head><title>Log\u001b[2Jin</title></head></html>",
      }),
    );
    const r = await said(server, ["tests", "list"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('titled "Log\\x1b[2Jin"');
    expect(r.stderr).toContain("its first line: <html>\\x1b]0;pwned\\x07<head>");
    expect(r.stderr).not.toContain("\u001b");
    expectClean(r);
  });

  it("JSON cut short with status 200: said to break off, its first line shown, exit 1", async () => {
    const server = await serve(startTruncatedJson());
    const r = await said(server, ["tests", "list"]);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toMatch(
      /The service's answer \(tests\) is not JSON: it starts as JSON but breaks off or goes wrong part-way \(cut short\?\); its first line: \{"tests":\[\{"testId":1001/,
    );
    expect(r.stderr).toMatch(hint);
    expectClean(r);
  });

  it("JSON nested millions deep (valid, under the cap): refused as such, no stack overflow", async () => {
    const depth = 2_000_000;
    const server = await serve(
      startFixedAnswer({ body: `{"tests":${"[".repeat(depth)}${"]".repeat(depth)}}` }),
    );
    const r = await assess(server, ["tests", "list"]);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toMatch(/JSON nested more than 256 levels deep/);
    expect(r.stderr).not.toMatch(/call stack|This looks like a bug/);
    expectClean(r);
    // The raw escape hatch shows the text as it came.
    const raw = await assess(server, ["api", "GET", "/v3/tests"]);
    expect(raw.code, raw.stderr).toBe(0);
    expect(raw.stderr).not.toMatch(/call stack|This looks like a bug/);
  });

  it("plain words with status 200 where JSON is expected: not JSON, first line only", async () => {
    const server = await serve(
      startFixedAnswer({ contentType: "text/plain", body: "Service under maintenance\r\nBack at 10:00\n" }),
    );
    const r = await said(server, ["tests", "list"]);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toContain(
      "The service's answer (tests) is not JSON; its first line: Service under maintenance\n",
    );
    expect(r.stderr).not.toContain("Back at 10:00");
    expectClean(r);
  });

  it("after a write, an HTML page is no proof of anything: exit 1, the request may have been processed", async () => {
    const server = await serve(startHtmlPage());
    const r = await said(server, [
      "invite",
      "send",
      "--test",
      "1001",
      "--email",
      "a@example.com",
      "--name",
      "A",
    ]);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toMatch(
      /answered HTTP 200 with an HTML page titled "Sign in · Example SSO", not JSON; its first line: <!DOCTYPE html>; the request may have been processed/,
    );
    expect(server.requests).toHaveLength(1);
    expectClean(r);
  });

  it("operations that answer plain text still work: a GDPR request's message, a bulk invite's `true`", async () => {
    const gdpr = await serve(
      startFixedAnswer({ contentType: "text/plain", body: "Request queued for masking" }),
    );
    const g = await said(gdpr, ["gdpr", "mask", "--email", "ada@example.com", "--yes"]);
    expect(g.code, g.stderr).toBe(0);
    expect(g.stderr).toContain("Request queued for masking");
    expectClean(g);

    const bulk = await serve(startFixedAnswer({ contentType: "text/plain", body: "true" }));
    const b = await said(bulk, [
      "invite",
      "bulk",
      join(ROOT, "fixtures", "candidates.csv"),
      "--test",
      "1001",
      "--json",
    ]);
    expect(b.code, b.stderr).toBe(0);
    expect(JSON.parse(b.stdout)).toMatchObject({ uncertain: 0, chunks: { failed: 0, uncertain: 0 } });
    expectClean(b);
  });
});
