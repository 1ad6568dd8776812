/**
 * Secrets: the API key (the sandbox's real keys are the canary: secrets as far as the CLI knows, plus an unknown
 * key for the 401 path) never reaches stdout, stderr, --debug output, the ledger, rejects or exported files, or
 * error messages, even when the service echoes it back; the config file ends 0600 after every command that
 * writes it; plain http to another host is refused; a redirect never carries the key to another origin.
 * Extends test/config/auth-config.test.ts (login refused while ASSESS_API_KEY is set, 0600 after
 * `config set`) and test/api/client.test.ts (--debug redaction, http refusal of --base-url).
 */
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SANDBOX_KEYS, useTempDir, useTestEnv } from "../helpers/cli.js";

const env = useTestEnv({ clearFaults: true });
const tmp = useTempDir("assess-trust-secrets-");
let completedId: number;
beforeAll(async () => {
  const r = await env.run([
    "invite",
    "send",
    "--test",
    "1001",
    "--email",
    "done@example.com",
    "--name",
    "Done",
    "--json",
  ]);
  completedId = r.json<{ testInvitationId: number }>().testInvitationId;
  await env.sandbox.completeAttempt(completedId, "Complete");
});

const UNKNOWN_KEY = "sbx-canary-0d15ea5e-7f3a9c21";
const CANARIES = [SANDBOX_KEYS.acme, SANDBOX_KEYS.globex, UNKNOWN_KEY];

/** Every file under `dir`, recursively, except the config file (it is where a stored key belongs). */
function filesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...filesUnder(path));
    else if (entry.name !== "config.json") out.push(path);
  }
  return out;
}

function expectNoCanary(where: string, text: string): void {
  for (const key of CANARIES) {
    expect(text.includes(key), `${where} contains the key ${key.slice(0, 8)}…`).toBe(false);
  }
}

describe("the key never leaves through output, files or messages", () => {
  // Paths under the temp dir made in beforeAll.
  const candidates = () => tmp.file("candidates.csv");
  const exported = () => tmp.file("export.csv");
  const rejects = () => tmp.file("rejects.csv");

  /** Commands that touch every output path: data, --debug, dry runs, JSON errors, bulk files, exports. */
  const commands = (): string[][] => [
    ["tests", "list", "--debug"],
    ["tests", "get", "1001", "--debug", "--json"],
    ["tests", "get", "2001", "--json"], // another account's test: 403
    ["tests", "get", "999999"], // 404
    ["tests", "settings", "get", "1001", "--debug"],
    ["links", "list", "--test", "1001", "--debug", "-o", "csv"],
    ["invite", "send", "--test", "1001", "--email", "c1@example.com", "--name", "C One", "--debug", "--json"],
    ["invite", "send", "--test", "1001", "--email", "c2@example.com", "--name", "C Two", "--dry-run"],
    [
      "invite",
      "bulk",
      candidates(),
      "--test",
      "1002",
      "--skip-invalid",
      "--rejects",
      rejects(),
      "--debug",
      "--json",
    ],
    ["invite", "bulk", candidates(), "--test", "1002", "--dry-run", "--restart"],
    ["attempts", "list", "--from", "30d", "--to", "now", "-o", "ndjson", "--debug"],
    ["reports", "get", String(completedId), "--debug"],
    ["reports", "export", "--from", "30d", "--to", "+1d", "--out", exported(), "--force", "--debug"],
    ["callbacks", "resend", String(completedId), "987654321", "--debug", "--json"],
    ["employees", "list", "--debug", "--limit", "3"],
    ["api", "GET", "/v3/tests", "-i", "--debug"],
    ["auth", "status", "--json"],
    ["config", "list", "--json"],
    ["tests", "list", "--output", "bogus"], // a usage error
  ];

  for (const [label, key] of [
    ["the account's key (valid)", SANDBOX_KEYS.acme],
    ["an unknown key (401)", UNKNOWN_KEY],
  ] as const) {
    for (const via of ["env", "flag"] as const) {
      it(`${label}, given by ${via === "env" ? "ASSESS_API_KEY" : "--api-key"}: not in stdout, stderr, ledgers, rejects or exports`, async () => {
        writeFileSync(
          candidates(),
          `email,name\nok.${via}.${key.length}@example.com,Ok\nnot-an-email,Bad\n=HYPERLINK("x"),Formula\n`,
        );
        const configDir = tmp.file(`config-${via}-${key.length}`);
        const codes: number[] = [];
        for (const argv of commands()) {
          const r = await env.run(via === "flag" ? ["--api-key", key, ...argv] : argv, {
            env: {
              ASSESS_API_KEY: via === "env" ? key : undefined,
              ASSESS_CONFIG_DIR: configDir,
              ASSESS_DEBUG: "1",
            },
          });
          codes.push(r.code);
          expectNoCanary(`stdout of ${argv.join(" ")}`, r.stdout);
          expectNoCanary(`stderr of ${argv.join(" ")}`, r.stderr);
        }
        // The valid key really did its work (the unknown one got 401s): the scan covered real output.
        if (key === SANDBOX_KEYS.acme) {
          expect(codes.filter((c) => c === 0).length).toBeGreaterThan(10);
          // …and wrote the files the scan below reads.
          for (const file of [exported(), rejects()]) expect(existsSync(file), file).toBe(true);
          expect(filesUnder(join(configDir, "ledgers")).length).toBeGreaterThan(0);
        } else expect(codes.filter((c) => c === 4).length).toBeGreaterThan(10);
        for (const file of [...filesUnder(configDir), ...filesUnder(tmp.dir)]) {
          expectNoCanary(file, readFileSync(file, "latin1"));
        }
      });
    }
  }

  it("error messages hide the key even when the service (or a proxy page) echoes it back", async () => {
    const key = SANDBOX_KEYS.acme;
    env.sandbox.faults.add({
      method: "GET",
      path: "/v3/tests",
      kind: "status",
      status: 400,
      body: JSON.stringify({ message: `Key ${key} is not allowed to list tests` }),
      contentType: "application/json",
    });
    const json = await env.run(["tests", "list", "--json"]);
    expect(json.code).toBe(1);
    expect(json.stderr).toContain("Key ****");
    env.sandbox.faults.add({
      method: "POST",
      path: "/v3/tests/*/invite",
      kind: "status",
      status: 401,
      body: JSON.stringify({ errors: [`invalid subscription key '${key}'`] }),
      contentType: "application/json",
    });
    const auth = await env.run([
      "invite",
      "send",
      "--test",
      "1001",
      "--email",
      "e@example.com",
      "--name",
      "E",
      "--json",
    ]);
    expect(auth.code).toBe(4);
    env.sandbox.faults.add({
      method: "GET",
      path: "/v3/tests/1001",
      kind: "status",
      status: 502,
      times: 5,
      body: `<html><title>Upstream error for x-api-key: ${key}</title><pre>x-api-key: ${key}</pre></html>`,
      contentType: "text/html",
    });
    const proxy = await env.run(["tests", "get", "1001", "--retries", "0", "--debug"]);
    expect(proxy.code).toBe(1);
    for (const r of [json, auth, proxy]) {
      expectNoCanary("stdout", r.stdout);
      expectNoCanary("stderr", r.stderr);
    }
  });

  it("a key that cannot be sent in a header (a pasted line break) → exit 4, said plainly, never echoed, nothing retried", async () => {
    const broken = `${UNKNOWN_KEY}\r\nx-injected: 1`;
    const mark = env.sandbox.requests.length;
    for (const argv of [
      ["tests", "list"],
      ["invite", "send", "--test", "1001", "--email", "h@example.com", "--name", "H"],
    ]) {
      const r = await env.run(argv, { env: { ASSESS_API_KEY: broken } });
      expect(r.code, r.stderr).toBe(4);
      expect(r.stderr).toMatch(/API key .*cannot be sent/);
      expect(r.stderr).not.toMatch(/retrying|may have been processed/);
      expectNoCanary("stderr", r.stderr);
    }
    expect(env.sandbox.requests.length).toBe(mark);
  });
});

describe("the config file is 0600 after any write, even if it was 0644", () => {
  const mode = (file: string) => statSync(file).mode & 0o777;
  const writers: Array<{ name: string; argv: string[]; stdin?: string; keyEnv?: boolean }> = [
    { name: "config set", argv: ["config", "set", "timeout", "9000"] },
    { name: "config unset", argv: ["config", "unset", "timeout"] },
    { name: "auth login --with-key", argv: ["auth", "login", "--with-key"], stdin: SANDBOX_KEYS.acme },
    { name: "auth logout", argv: ["auth", "logout"] },
  ];
  for (const w of writers) {
    it(w.name, async () => {
      const dir = tmp.file(`mode-${w.name.replace(/\W+/g, "-")}`);
      mkdirSync(dir, { recursive: true });
      const file = join(dir, "config.json");
      writeFileSync(
        file,
        JSON.stringify({ profiles: { default: { timeout: "5000", "api-key": SANDBOX_KEYS.globex } } }),
      );
      chmodSync(file, 0o644);
      const r = await env.run(w.argv, {
        env: { ASSESS_CONFIG_DIR: dir, ASSESS_API_KEY: undefined },
        stdin: w.stdin,
      });
      expect(r.code, r.stderr).toBe(0);
      expect(mode(file)).toBe(0o600);
      expectNoCanary("stderr", r.stderr);
    });
  }

  it("auth login refuses while ASSESS_API_KEY is set, says so, and stores nothing", async () => {
    const dir = tmp.file("login-shadowed");
    const r = await env.run(["auth", "login", "--with-key"], {
      env: { ASSESS_CONFIG_DIR: dir },
      stdin: SANDBOX_KEYS.globex,
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("ASSESS_API_KEY is set");
    expect(r.stderr).toMatch(/[Uu]nset ASSESS_API_KEY/);
    expect(() => readFileSync(join(dir, "config.json"))).toThrow();
    expectNoCanary("stderr", r.stderr);
  });
});

describe("plain http only to this machine", () => {
  const refused = [
    "http://api.example.com",
    "http://127.0.0.1.nip.io",
    "http://localhost.example.com",
    "http://10.0.0.5:8080/api",
    "http://[::2]",
  ];
  for (const url of refused) {
    it(`refuses ${url} (flag, environment, profile; assess and skills URLs), exit 2, nothing sent`, async () => {
      const dir = tmp.file(`http-${url.replace(/\W+/g, "-")}`);
      await env.run(["config", "set", "base-url", "https://ok.example.com"], {
        env: { ASSESS_CONFIG_DIR: dir },
      });
      // The error names where the URL was given.
      const variants: Array<{ argv: string[]; env?: Record<string, string>; given: string }> = [
        { argv: ["--base-url", url, "tests", "list"], given: "--base-url" },
        { argv: ["--skills-base-url", url, "employees", "list"], given: "--skills-base-url" },
        { argv: ["tests", "list"], env: { ASSESS_BASE_URL: url }, given: "ASSESS_BASE_URL" },
        {
          argv: ["employees", "list"],
          env: { ASSESS_SKILLS_BASE_URL: url },
          given: "ASSESS_SKILLS_BASE_URL",
        },
      ];
      for (const v of variants) {
        const r = await env.run(v.argv, { env: { ASSESS_CONFIG_DIR: dir, ...v.env } });
        expect(r.code, r.stderr).toBe(2);
        expect(r.stderr).toContain("Refusing to send your API key over plain http");
        expect(r.stderr).toContain(`(${v.given})\n`);
        expect(r.stderr).toContain("--allow-http");
      }
      // A profile edited by hand (config set refuses such a URL, below).
      const file = join(dir, "config.json");
      const config = JSON.parse(readFileSync(file, "utf8"));
      config.profiles.default["base-url"] = url;
      writeFileSync(file, JSON.stringify(config));
      const fromProfile = await env.run(["tests", "list"], {
        env: { ASSESS_CONFIG_DIR: dir, ASSESS_BASE_URL: undefined },
      });
      expect(fromProfile.code, fromProfile.stderr).toBe(2);
      expect(fromProfile.stderr).toContain('(base-url of profile "default")\n');
      const stored = await env.run(["config", "set", "base-url", url], { env: { ASSESS_CONFIG_DIR: dir } });
      expect(stored.code).toBe(2);
    });
  }

  it("--allow-http lifts the refusal (a dry run shows the request, key redacted); loopback needs no flag", async () => {
    const r = await env.run(
      [
        "--allow-http",
        "--base-url",
        "http://api.example.com",
        "invite",
        "send",
        "--test",
        "1001",
        "--email",
        "d@example.com",
        "--name",
        "D",
        "--dry-run",
      ],
      {},
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("http://api.example.com/v3/tests/1001/invite");
    expect(r.stdout).toContain(`****${SANDBOX_KEYS.acme.slice(-4)}`);
    expectNoCanary("stdout", r.stdout);
    const local = await env.run(["tests", "list", "--json"], {
      env: { ASSESS_BASE_URL: env.sandbox.url.replace("127.0.0.1", "localhost") },
    });
    expect(local.code, local.stderr).toBe(0);
  });
});

describe("redirects never carry the key to another origin", () => {
  let service: http.Server;
  let other: http.Server;
  let serviceOrigin: string;
  let otherOrigin: string;
  const seenByOther: Array<{ method: string; url: string; key: string | undefined }> = [];
  const seenByService: Array<{ url: string; key: string | undefined }> = [];

  beforeAll(async () => {
    other = http.createServer((req, res) => {
      seenByOther.push({
        method: req.method ?? "",
        url: req.url ?? "",
        key: req.headers["x-api-key"] as string,
      });
      req.resume();
      res.writeHead(200, { "content-type": "application/json" }).end("[]");
    });
    service = http.createServer((req, res) => {
      const url = req.url ?? "/";
      seenByService.push({ url, key: req.headers["x-api-key"] as string });
      req.resume();
      const [, mode, status] = /^\/(cross|same|scheme)(\d{3})\//.exec(url) ?? [];
      const rest = url.replace(/^\/[a-z]+\d{3}/, "");
      if (mode === "cross") res.writeHead(Number(status), { location: `${otherOrigin}${rest}` }).end();
      else if (mode === "scheme")
        res.writeHead(Number(status), { location: `https://127.0.0.1:${port(service)}${rest}` }).end();
      else if (mode === "same") res.writeHead(Number(status), { location: `/real${rest}` }).end();
      else res.writeHead(200, { "content-type": "application/json" }).end('[{"testId":1}]');
    });
    await Promise.all([listen(service), listen(other)]);
    serviceOrigin = `http://127.0.0.1:${port(service)}`;
    otherOrigin = `http://127.0.0.1:${port(other)}`;
  });
  afterAll(async () => {
    await Promise.all([close(service), close(other)]);
  });

  for (const status of [301, 302, 303, 307, 308]) {
    it(`${status} to another origin: not followed, exit 1, says why; the other server sees nothing`, async () => {
      for (const argv of [
        ["api", "GET", "/v3/tests"],
        ["api", "POST", "/v3/tests/1001/invite", "--data", '{"emailId":"r@example.com","fullName":"R"}'],
      ]) {
        const r = await env.run(argv, { env: { ASSESS_BASE_URL: `${serviceOrigin}/cross${status}` } });
        expect(r.code, r.stderr).toBe(1);
        expect(r.stderr).toContain(
          `redirected to another origin (${otherOrigin}); not following it with your API key`,
        );
        expectNoCanary("stderr", r.stderr);
      }
      expect(seenByOther).toEqual([]);
    });
  }

  it("http → https on the same host is another origin too", async () => {
    const r = await env.run(["api", "GET", "/v3/tests"], {
      env: { ASSESS_BASE_URL: `${serviceOrigin}/scheme301` },
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("redirected to another origin (https://127.0.0.1:");
  });

  it("a same-origin redirect is followed, with the key", async () => {
    seenByService.length = 0;
    const r = await env.run(["api", "GET", "/v3/tests"], {
      env: { ASSESS_BASE_URL: `${serviceOrigin}/same307` },
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.json()).toEqual([{ testId: 1 }]);
    expect(seenByService.map((s) => [s.url, s.key])).toEqual([
      ["/same307/v3/tests", SANDBOX_KEYS.acme],
      ["/real/v3/tests", SANDBOX_KEYS.acme],
    ]);
    expect(seenByOther).toEqual([]);
  });
});

function port(server: http.Server): number {
  return (server.address() as AddressInfo).port;
}

function listen(server: http.Server): Promise<void> {
  return new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
}

function close(server: http.Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}
