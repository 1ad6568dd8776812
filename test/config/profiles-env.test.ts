/**
 * Profiles and ASSESS_* variables, through main(argv) against the sandbox: a profile named explicitly must
 * exist, an empty variable is unset, and `config list` shows the value in effect and its source.
 */
import { spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, readFileSync, statSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT, SANDBOX_KEYS, useTempDir, useTestEnv } from "../helpers/cli.js";

const t = useTestEnv();
const dir = useTempDir("assess-first-hour-");

describe("a profile named explicitly must exist", () => {
  it("--profile nope and ASSESS_PROFILE=nope: exit 2 naming the profiles there are", async () => {
    const env = { ASSESS_CONFIG_DIR: dir.file("profiles") };
    expect((await t.run(["config", "set", "timeout", "5000", "--profile", "staging"], { env })).code).toBe(0);
    for (const [argv, extra, from] of [
      [["tests", "list", "--profile", "nope"], {}, "--profile"],
      [["tests", "list"], { ASSESS_PROFILE: "nope" }, "ASSESS_PROFILE"],
    ] as const) {
      const r = await t.run([...argv], { env: { ...env, ...extra, ASSESS_API_KEY: undefined } });
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(`Profile "nope" (${from}) does not exist`);
      expect(r.stderr).toContain("Profiles in");
      expect(r.stderr).toContain("staging");
      expect(r.stderr).not.toContain("No API key");
    }
    // With the key in the environment nothing hinges on the profile: a CI job naming one it lacks still runs.
    expect((await t.run(["tests", "list", "--profile", "nope"], { env })).code).toBe(0);
    // `default` may be absent, an existing profile works, and `auth login --profile new` creates one.
    expect((await t.run(["tests", "list", "--profile", "default"], { env })).code).toBe(0);
    expect((await t.run(["tests", "list", "--profile", "staging"], { env })).code).toBe(0);
    const login = await t.run(["auth", "login", "--with-key", "--profile", "fresh"], {
      env: { ...env, ASSESS_API_KEY: undefined },
      stdin: SANDBOX_KEYS.acme,
    });
    expect(login.code, login.stderr).toBe(0);
  });
});

describe("an empty ASSESS_* variable is unset", () => {
  it("ASSESS_BASE_URL= (and the others empty) falls through to the profile", async () => {
    const configDir = dir.file("empty-env");
    const env = { ASSESS_CONFIG_DIR: configDir };
    for (const [key, value] of [
      ["base-url", t.sandbox.url],
      ["skills-base-url", t.sandbox.skillsUrl],
      ["api-key", SANDBOX_KEYS.acme],
    ]) {
      expect((await t.run(["config", "set", key!, value!], { env })).code).toBe(0);
    }
    const empty = {
      ...env,
      ASSESS_BASE_URL: "",
      ASSESS_SKILLS_BASE_URL: "",
      ASSESS_API_KEY: "",
      ASSESS_PROFILE: "",
      ASSESS_DEBUG: "",
    };
    const tests = await t.run(["tests", "list", "--json"], { env: empty });
    expect(tests.code, tests.stderr).toBe(0);
    expect(tests.stderr).not.toContain("is not a URL");
    expect(tests.stdout).toContain("JavaScript Fundamentals");
    const employees = await t.run(["employees", "list", "--limit", "1"], { env: empty });
    expect(employees.code, employees.stderr).toBe(0);
  });
});

describe("a base URL that does not answer", () => {
  it("the hint names `config list`, which shows the URL in use (the variable's), not `config get` (the profile's)", async () => {
    const env = { ASSESS_CONFIG_DIR: dir.file("unreachable"), ASSESS_BASE_URL: "http://127.0.0.1:9" };
    expect((await t.run(["config", "set", "base-url", t.sandbox.url], { env })).code).toBe(0);
    const r = await t.run(["tests", "list", "--retries", "0"], { env });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("connection refused");
    expect(r.stderr).toContain("`assess config list` shows the one in use and where it comes from");
    expect(r.stderr).not.toContain("config get");
    const list = await t.run(["config", "list"], { env });
    expect(list.stdout).toContain("base-url\thttp://127.0.0.1:9\tenv ASSESS_BASE_URL");
  });
});

describe("output consistency", () => {
  it("config list shows the value in effect and its source, the key redacted", async () => {
    const r = await t.run(["config", "list", "--timeout", "900"]);
    expect(r.code).toBe(0);
    const lines = r.stdout.split("\n");
    expect(lines[0]).toBe("KEY\tVALUE\tSOURCE");
    expect(lines).toContain(`base-url\t${t.sandbox.url}\tenv ASSESS_BASE_URL`);
    expect(lines).toContain(`api-key\t****${SANDBOX_KEYS.acme.slice(-4)}\tenv ASSESS_API_KEY`);
    expect(lines).toContain("timeout\t900\tflag --timeout");
    expect(lines).toContain("retries\t3\tdefault");
    expect(r.stdout).not.toContain(SANDBOX_KEYS.acme);
    // An empty variable is unset here too: the profile's value, or the built-in default.
    const empty = await t.run(["config", "list"], { env: { ASSESS_BASE_URL: "" } });
    expect(empty.stdout).toContain("base-url\thttps://api.assess.invalid\tdefault\n");
  });

  it("api takes a lower-case method and a path without its slash; a whole URL gets the path to use", async () => {
    const r = await t.run(["api", "get", "v3/tests", "-f", "pageSize=2"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("JavaScript Fundamentals");
    const url = await t.run(["api", "GET", `${t.sandbox.url}/v3/tests`]);
    expect(url.code).toBe(2);
    expect(url.stderr).toContain("not a whole URL");
    expect(url.stderr).toContain("/v3/tests`");
  });

  it("sandbox complete honours the output format", async () => {
    const server: Server = createServer((req, res) => {
      req.resume();
      req.on("end", () => res.end("ok"));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const callback = `http://127.0.0.1:${(server.address() as { port: number }).port}/hook`;
    try {
      const invite = async (email: string) => {
        const r = await t.run([
          ...["invite", "send", "--test", "1001", "--email", email, "--name", "Out Put"],
          ...["--callback-url", callback, "-o", "tsv", "--fields", "testInvitationId"],
        ]);
        expect(r.code, r.stderr).toBe(0);
        return r.stdout.trim().split("\n").at(-1)!;
      };
      const tsv = await t.run(["sandbox", "complete", await invite("out.tsv@example.com")]);
      expect(tsv.code, tsv.stderr).toBe(0);
      expect(tsv.stdout.split("\n").slice(0, 3)).toEqual([
        "NOTIFICATION\tCALLBACK URL\tHTTP",
        `In Progress\t${callback}\t200`,
        `Complete\t${callback}\t200`,
      ]);
      const csv = await t.run(["sandbox", "complete", await invite("out.csv@example.com"), "-o", "csv"]);
      expect(csv.stdout.split("\r\n")[0]).toBe("NOTIFICATION,CALLBACK URL,HTTP");
      const json = await t.run(["sandbox", "complete", await invite("out.json@example.com"), "--json"]);
      expect(json.json<{ delivered: unknown[] }>().delivered).toHaveLength(2);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it("the config folder's sandbox/ is 0700, also when an earlier version made it 0755", async () => {
    for (const older of [false, true]) {
      const configDir = dir.file(`sandbox-mode-${older}`);
      if (older) {
        mkdirSync(join(configDir, "sandbox"), { recursive: true });
        chmodSync(join(configDir, "sandbox"), 0o755);
      }
      const r = await t.run(["--sandbox", "tests", "list"], { env: { ASSESS_CONFIG_DIR: configDir } });
      expect(r.code, r.stderr).toBe(0);
      expect(statSync(join(configDir, "sandbox")).mode & 0o777).toBe(0o700);
      if (!older) expect(statSync(configDir).mode & 0o777).toBe(0o700);
    }
  });

  it("tables on a terminal: a rule under the header, none between rows; control characters still escaped", async () => {
    const r = await t.run(["tests", "list"], { tty: true });
    expect(r.code).toBe(0);
    const lines = r.stdout.trimEnd().split("\n");
    expect(lines.filter((l) => l.startsWith("├"))).toHaveLength(1);
    expect(lines[1]).toMatch(/│ ID\s+│ NAME/);
    expect(lines[2]!.startsWith("├")).toBe(true);
    expect(lines.filter((l) => l.startsWith("│"))).toHaveLength(6); // the header and five tests
    const record = await t.run(["tests", "get", "1001"], { tty: true });
    expect(record.stdout.split("\n").filter((l) => l.startsWith("├"))).toHaveLength(1); // the sections' header
    t.sandbox.state.tests[0]!.testName = "Evil\u001b[2J name";
    try {
      const hostile = await t.run(["tests", "list"], { tty: true });
      expect(hostile.stdout).toContain("Evil\\x1b[2J name");
      expect(hostile.stdout).not.toContain("\u001b[2J");
    } finally {
      t.sandbox.state.tests[0]!.testName = "JavaScript Fundamentals";
    }
  });

  it("the demo's second run says in a sentence that the ledger sent nothing (npm run demo, minus its build)", () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { scripts: { demo: string } };
    const script = pkg.scripts.demo.replace(/^npm run build --silent && /, "");
    expect(script).not.toBe(pkg.scripts.demo);
    const tmp = dir.file("demo-tmp");
    mkdirSync(tmp);
    const r = spawnSync("bash", ["-c", script], {
      cwd: ROOT,
      encoding: "utf8",
      env: { PATH: process.env.PATH, NO_COLOR: "1", TMPDIR: tmp },
    });
    expect(r.status, r.stderr).toBe(0);
    const second = r.stdout.split("\n$ ")[2]!;
    expect(second).toContain("run again: the ledger sends nothing twice");
    expect(r.stdout).not.toMatch(/"omitted"|"unmatched"/);
    expect(r.stderr).toContain("25 rows: 0 sent, 25 already done");
    expect(r.stderr).toContain("Nothing to send: earlier runs already got every row confirmed");
  });

  it("the README tour writes its export outside the clone", () => {
    const readme = readFileSync(join(ROOT, "README.md"), "utf8");
    const tour = /## A two-minute tour on the sandbox[\s\S]*?```sh\n([\s\S]*?)```/.exec(readme)![1]!;
    expect(tour).toMatch(/^out=\$\(mktemp -d\)/m);
    const outs = [...tour.matchAll(/--out (\S+)/g)].map((m) => m[1]);
    expect(outs.length).toBeGreaterThan(0);
    for (const out of outs) expect(out).toMatch(/^"\$out\//);
  });
});
