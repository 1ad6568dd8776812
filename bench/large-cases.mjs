#!/usr/bin/env node
// The test suite's cases at full size: each checks its outcome as its test does and prints its figures. The
// suite runs them at a size that keeps every test far below its timeout on a busy 2-core machine; here they
// run at the size that once found or guards the behaviour.
//
//   xlsx        `invite bulk` of a 100,000-row sheet (--sandbox): read and sent whole
//               (suite: test/bulk/xlsx-input.test.ts, 1,000 rows)
//   split       a 200,000-row CSV whose middle falls inside a 40 KB quoted value: the check in two halves
//               falls back to one pass and every row is sent, each once, in 201 requests
//               (suite: test/bulk/parallel-check.test.ts, the same file with an invalid last row, nothing sent)
//   conflicts   `employees upsert --skip-invalid` of 130,002 rows checked in two halves, with conflicts within and
//               across the halves: the conflicting rows are kept back, every other employee is sent once
//               (suite: test/bulk/employee-conflicts.test.ts, the same file without --skip-invalid, nothing sent)
//   torn        a ledger of 6 chunks (3 keys each) cut at every byte, with and without zero padding: read back as
//               its complete records say; a run resumes on it every 97 cuts (suite: test/trust/crash.test.ts, a
//               ledger of 1 key a chunk)
//   tolerance   the tolerance property over --runs random variants (25 by default) of the reshaped answers
//               (suite: test/real/tolerance.test.ts, 5 variants)
//
// The CLI cases run the built CLI against `assess sandbox` in a process of its own (it records request bodies:
// the sandbox's request log is what is checked); torn and tolerance drive the modules in-process (bundled here
// with esbuild). Exit 1 if any case's outcome is not the expected one.
//
// Usage: npm run bench:large [-- --only xlsx,split,conflicts,torn,tolerance --runs 25]
import { strict as assert } from "node:assert";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough, Readable } from "node:stream";
import writeExcelFile from "write-excel-file/node";
import { arg, bin, importBundled, machineLine, spawnNode, startCliSandbox } from "./common.mjs";

const CASES = ["xlsx", "split", "conflicts", "torn", "tolerance"];
const only = new Set(arg("only", CASES.join(",")).split(","));
const RUNS = Number(arg("runs", "25"));

const work = mkdtempSync(join(tmpdir(), "assess-bench-large-"));
process.on("exit", () => rmSync(work, { recursive: true, force: true }));

const fmt = (n) => n.toLocaleString("en-US");
const seconds = (ms) => `${(ms / 1000).toFixed(2)} s`;
let configs = 0;
const freshConfig = () => join(work, `config-${configs++}`);

/** The built CLI, its own config folder, pointed at `sandbox` when given: `{ code, stdout, stderr, ms }`. */
function assess(args, sandbox) {
  const env = { PATH: process.env.PATH, NO_COLOR: "1", ASSESS_CONFIG_DIR: freshConfig() };
  if (sandbox)
    Object.assign(env, {
      ASSESS_BASE_URL: sandbox.url,
      ASSESS_SKILLS_BASE_URL: sandbox.skillsUrl,
      ASSESS_API_KEY: sandbox.keys.acme,
    });
  return spawnNode([bin, ...args], { env }).result;
}

/**
 * `assess sandbox` in a process of its own, and its requests to a path that `path` matches answered 200 (the
 * bodies it processed; a 429 the CLI retried is not counted).
 */
async function withSandbox(use) {
  const sandbox = await startCliSandbox({ PATH: process.env.PATH, ASSESS_CONFIG_DIR: freshConfig() });
  sandbox.requests = async (path) => {
    const res = await fetch(`${sandbox.url}/_sandbox/requests`);
    return (await res.json()).filter((r) => r.method === "POST" && path.test(r.path) && r.status === 200);
  };
  try {
    return await use(sandbox);
  } finally {
    const exited = new Promise((resolve) => sandbox.child.once("exit", resolve));
    sandbox.child.kill("SIGINT");
    await exited;
  }
}

/** How often each e-mail was sent, over the bodies of `requests` (a list of candidates, or of employees). */
function sentCounts(requests) {
  const counts = new Map();
  for (const r of requests)
    for (const item of r.body.candidates ?? r.body) {
      const email = item.email.toLowerCase();
      counts.set(email, (counts.get(email) ?? 0) + 1);
    }
  return counts;
}

const cases = {
  async xlsx() {
    const ROWS = 100_000;
    const path = join(work, "large.xlsx");
    const rows = [["email", "name", "testid"]];
    for (let i = 0; i < ROWS; i++) rows.push([`large${i}@example.com`, `Large ${i}`, 1001]);
    await writeExcelFile(rows, { sheet: "All" }).toFile(path);
    const r = await assess(["--sandbox", "invite", "bulk", path, "--json"]);
    assert.match(r.stderr, new RegExp(`large\\.xlsx, sheet "All": ${fmt(ROWS)} rows: ${fmt(ROWS)} sent`));
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(pick(JSON.parse(r.stdout), ["rows", "sent", "invalid"]), {
      rows: ROWS,
      sent: ROWS,
      invalid: 0,
    });
    return `${fmt(ROWS)} rows (${(statSync(path).size / 2 ** 20).toFixed(1)} MiB), sent in ${seconds(r.ms)}`;
  },

  async split() {
    const ROWS = 200_000;
    const path = join(work, "across.csv");
    const row = (i) => `candidate${i}@example.com,Candidate Number ${i}\n`;
    const quoted = `across@example.com,"${"a line of a long quoted value\n".repeat(1_400)}"\n`;
    const header = "email,name\n";
    const rows = Array.from({ length: ROWS }, (_, i) => row(i));
    const total = header.length + rows.join("").length + quoted.length;
    let before = header.length;
    let k = 0;
    while (before + rows[k].length < (total - quoted.length) / 2) before += rows[k++].length;
    writeFileSync(path, `${header}${rows.slice(0, k).join("")}${quoted}${rows.slice(k).join("")}`);
    return withSandbox(async (sandbox) => {
      const r = await assess(["invite", "bulk", path, "--test", "1001", "--json", "--debug"], sandbox);
      assert.match(
        r.stderr,
        /the first half ends inside a quoted value.*checking the whole file in one pass/,
      );
      assert.equal(r.code, 0, r.stderr);
      const sent = ROWS + 1;
      assert.deepEqual(pick(JSON.parse(r.stdout), ["rows", "valid", "sent"]), {
        rows: sent,
        valid: sent,
        sent,
      });
      const requests = await sandbox.requests(/\/invite\/bulk$/);
      assert.equal(requests.length, Math.ceil(sent / 1000));
      const counts = sentCounts(requests);
      assert.equal(counts.size, sent);
      assert.ok(
        [...counts.values()].every((n) => n === 1),
        "an e-mail sent twice",
      );
      return `${fmt(sent)} rows (${(statSync(path).size / 2 ** 20).toFixed(1)} MiB), one pass after the cut, ${requests.length} requests, ${seconds(r.ms)}`;
    });
  },

  async conflicts() {
    const ROWS = 130_000;
    const path = join(work, "split-staff.csv");
    const lines = ["email,firstName,lastName,externalEmployeeId,department"];
    for (let i = 0; i < ROWS; i++) {
      lines.push(
        i === 120_000
          ? "EMPLOYEE100000@example.com,Other,Name,EXT-100000,Department 0" // line 120002: conflicts with 100002
          : `employee${i}@example.com,First${i},Last${i},EXT-${i},Department ${i % 50}`,
      );
    }
    lines.push("employee10@example.com,First10,Last10,EXT-10,Department 99"); // 130002: conflicts with 12
    lines.push("employee20@example.com,First20,Last20,EXT-20,Department 20"); // 130003: repeats 22
    writeFileSync(path, `${lines.join("\n")}\n`);
    return withSandbox(async (sandbox) => {
      const r = await assess(["employees", "upsert", path, "--skip-invalid", "--json", "--debug"], sandbox);
      assert.match(r.stderr, /in two halves at once/);
      assert.equal(r.code, 0, r.stderr);
      const result = JSON.parse(r.stdout);
      assert.deepEqual(pick(result, ["rows", "valid", "invalid", "duplicates", "sent"]), {
        rows: ROWS + 2,
        valid: ROWS - 2,
        invalid: 4,
        duplicates: 1,
        sent: ROWS - 3,
      });
      assert.deepEqual(result.duplicateRows, [
        { line: 130_003, label: "employee20@example.com", error: "repeats an earlier row; sent once" },
      ]);
      const counts = sentCounts(await sandbox.requests(/^\/employees\/upsert$/));
      assert.equal(counts.size, ROWS - 3);
      assert.ok(
        [...counts.values()].every((n) => n === 1),
        "an employee sent twice",
      );
      for (const gone of ["employee10@example.com", "employee100000@example.com"])
        assert.ok(!counts.has(gone), gone);
      const rejects = readFileSync(path.replace(/\.csv$/, ".rejects.csv"), "utf8")
        .trim()
        .split(/\r?\n/);
      assert.deepEqual(
        rejects.slice(1).map((line) => line.replace(/^.*,(line \d+: conflicts with line \d+):.*$/, "$1")),
        [
          "line 12: conflicts with line 130002",
          "line 100002: conflicts with line 120002",
          "line 120002: conflicts with line 100002",
          "line 130002: conflicts with line 12",
        ],
      );
      return `${fmt(ROWS + 2)} rows, 4 conflicting kept back, ${fmt(counts.size)} employees sent once, ${seconds(r.ms)}`;
    });
  },

  async torn() {
    const { FULL, tornLedger } = await importBundled(
      work,
      "torn",
      'export { FULL, tornLedger } from "./test/trust/torn-ledger.ts";',
    );
    const started = performance.now();
    const equal = (actual, expected, what) => assert.equal(actual, expected, what);
    const { bytes, checked } = await tornLedger(join(work, "torn"), { chunks: FULL, keys: 3 }, equal);
    return `a ledger of ${fmt(bytes)} bytes, ${fmt(checked)} cuts read back, in ${seconds(performance.now() - started)}`;
  },

  async tolerance() {
    const m = await importBundled(
      work,
      "tolerance",
      `export { main } from "./src/cli.ts";
export { startSandbox, SANDBOX_KEYS } from "./src/sandbox/index.ts";
export { COMMANDS, NOW, observeCommand, startReshapingProxy, variantArb } from "./test/real/reshape.ts";
export { default as fc } from "fast-check";`,
    );
    const sandbox = await m.startSandbox({ assessPrefix: "/api", skillsPrefix: "/skills", now: () => m.NOW });
    const proxy = await m.startReshapingProxy(new URL(sandbox.url).origin);
    const configDir = freshConfig();
    const observe = (origin, argv) =>
      m.observeCommand(async (args) => {
        const out = collect();
        const err = collect();
        const env = {
          PATH: process.env.PATH,
          NO_COLOR: "1",
          CI: "true",
          ASSESS_BASE_URL: `${origin}/api`,
          ASSESS_SKILLS_BASE_URL: `${origin}/skills`,
          ASSESS_API_KEY: m.SANDBOX_KEYS.acme,
          ASSESS_CONFIG_DIR: configDir,
        };
        const code = await m.main(args, {
          stdout: out.stream,
          stderr: err.stream,
          stdin: Readable.from([]),
          env,
        });
        return { code, stdout: out.text(), stderr: err.text() };
      }, argv);
    const started = performance.now();
    try {
      const origin = new URL(sandbox.url).origin;
      const baseline = new Map();
      // Twice: the first invite creates the invitation, later ones answer with the same one.
      for (const argv of m.COMMANDS) await observe(origin, argv);
      for (const argv of m.COMMANDS) baseline.set(argv.join(" "), await observe(origin, argv));
      const errorLines = (errors) => errors?.map((line) => line.replace(/\s*\(.*\)$/, ""));
      await m.fc.assert(
        m.fc.asyncProperty(m.variantArb, async (variant) => {
          proxy.variant = variant;
          for (const argv of m.COMMANDS) {
            const seen = await observe(proxy.url, argv);
            const expected = baseline.get(argv.join(" "));
            const label = `${argv.join(" ")} with ${JSON.stringify(variant)}`;
            assert.equal(seen.code, expected.code, label);
            assert.deepEqual(seen.json, expected.json, label);
            if (/^[A-Z][A-Z0-9 _]*(\t|\n)/.test(expected.tsv)) assert.equal(seen.tsv, expected.tsv, label);
            assert.deepEqual(errorLines(seen.errors), errorLines(expected.errors), label);
          }
        }),
        { numRuns: RUNS },
      );
    } finally {
      await proxy.close();
      await sandbox.close();
    }
    return `${RUNS} variants × ${m.COMMANDS.length} commands, same exit codes and data, in ${seconds(performance.now() - started)}`;
  },
};

/** A stream that keeps what is written to it (not a terminal). */
function collect() {
  const chunks = [];
  const stream = new PassThrough();
  stream.on("data", (chunk) => chunks.push(chunk));
  return { stream, text: () => Buffer.concat(chunks).toString("utf8") };
}

function pick(object, keys) {
  return Object.fromEntries(keys.map((key) => [key, object[key]]));
}

console.log(machineLine());
mkdirSync(join(work, "torn"));
let failed = 0;
for (const name of CASES) {
  if (!only.has(name)) continue;
  try {
    console.log(`${name.padEnd(10)} ok: ${await cases[name]()}`);
  } catch (error) {
    failed++;
    console.log(`${name.padEnd(10)} FAILED: ${error.message}`);
  }
}
process.exitCode = failed ? 1 : 0;
