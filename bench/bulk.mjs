#!/usr/bin/env node
// Bulk runs of the built CLI against the sandbox (in a process of its own, request bodies not recorded), each
// figure a ratio measured in this one run, printed with its goal:
//
//   invite     `invite bulk` of 100k and 1M generated rows (1000 per request) against a minimal raw undici loop
//              posting the same chunks, pre-built, at the same concurrency: time ≤ 1.3× (100k: the look-up of
//              who finished runs while the file is checked), ≤ 1.5× (1M); peak RSS ≤ 150 MiB;
//              1M-row peak ≤ 1.3× the 100k-row peak. Also shown (no goal): a rerun that skips every row, and
//              --skip-invalid (checked first too: its invalid rows are rejected as it sends).
//   upsert     the same for `employees upsert` (100 per request: 10,000 requests for 1M rows), and its peak RSS
//              at its own default concurrency (8).
//   ledger     the 1M-row runs of both commands with the ledger and without it (the CLI bundled with the ledger
//              stubbed out, both builds otherwise identical; median of --runs pairs): it adds ≤ 10 % to wall time.
//   concurrency  a 100k-row upsert against a sandbox answering each request 50 ms late: the default
//              concurrency ≥ 4× faster than --concurrency 1.
//
// Usage: npm run bench:bulk [-- --only invite,upsert,ledger,concurrency --sizes 100000,1000000 --runs 3 --keep]
// With --base DIR (another checkout, built there: a `git worktree` of main, say), and "base" in --only: this
// build against that one, alternately, at each size and the commands' default concurrency (median of --runs).
// --kinds invite (or upsert) runs that command alone, in every part but concurrency.
import { createWriteStream, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { build } from "esbuild";
import { verbsPlugin } from "../src/commands/verb-files.mjs";
import {
  arg,
  bin,
  bundleSandbox,
  machineLine,
  median,
  root,
  spawnNode,
  startBundledSandbox,
} from "./common.mjs";

const only = new Set(arg("only", "invite,upsert,ledger,concurrency").split(","));
/** The commands the invite, upsert, base and ledger parts run (`--kinds upsert`: the upsert runs alone). */
const kinds = arg("kinds", "invite,upsert").split(",");
const sizes = arg("sizes", "100000,1000000").split(",").map(Number);
const runs = Number(arg("runs", "3"));
const CONCURRENCY = 4; // invite bulk's default; both sides of a time comparison use the same
const keep = process.argv.includes("--keep");
const baseDir = arg("base", undefined);
const MiB = 1024 * 1024;
const LATENCY_MS = 50;
const CONCURRENCY_ROWS = 100_000;

const work = mkdtempSync(join(tmpdir(), "assess-bench-bulk-"));
process.on("exit", () => {
  if (!keep) rmSync(work, { recursive: true, force: true });
});

const KINDS = {
  invite: {
    header: "email,name",
    row: (i) => `candidate${i}@example.com,Candidate Number ${i}`,
    argv: (file) => ["invite", "bulk", file, "--test", "1001"],
    path: "/v3/tests/1001/invite/bulk",
    defaultConcurrency: 4,
  },
  upsert: {
    header: "email,firstName,lastName,externalEmployeeId,department",
    row: (i) => `employee${i}@example.com,First${i},Last${i},EXT-${i},Department ${i % 50}`,
    argv: (file) => ["employees", "upsert", file],
    path: "/employees/upsert",
    defaultConcurrency: 8,
  },
};

await writeHelpers();
console.log(machineLine());

let missed = 0;
const verdict = (ok) => {
  if (!ok) missed++;
  return ok ? "met" : "MISSED";
};
const fmt = (n) => Math.round(n).toLocaleString("en-US");
const seconds = (ms) => `${(ms / 1000).toFixed(2).padStart(7)} s`;

for (const kind of kinds) {
  if (!only.has(kind)) continue;
  const peaks = new Map();
  for (const rows of sizes) {
    const file = await generate(kind, rows);
    const cli = await runCli(kind, file, ["--concurrency", String(CONCURRENCY)], { rss: true });
    const base = await withSandbox({}, (sb) => baseline(kind, file, sb));
    const ratio = cli.ms / base.ms;
    peaks.set(rows, cli.rss);
    console.log(`\n${kind}: ${fmt(rows)} rows, ${fmt(base.requests)} requests, concurrency ${CONCURRENCY}`);
    console.log(
      `  assess                 ${seconds(cli.ms)}   ${fmt(rows / (cli.ms / 1000)).padStart(9)} rows/s`,
    );
    console.log(
      `  raw undici, pre-built  ${seconds(base.ms)}   ${fmt(rows / (base.ms / 1000)).padStart(9)} rows/s`,
    );
    // At 100k rows start-up and the run's fixed costs (~0.3 s: a process, a cold code cache, one thread
    // checking a file below the two-halves size) weigh most; the raw loop's start-up is not timed.
    const goal = rows >= 1_000_000 ? 1.5 : 1.3;
    console.log(
      `  time vs raw loop       ${ratio.toFixed(2).padStart(7)}×    goal ≤ ${goal}×: ${verdict(ratio <= goal)}`,
    );
    console.log(
      `  peak RSS               ${(cli.rss / MiB).toFixed(1).padStart(7)} MiB  goal ≤ 150 MiB: ${verdict(cli.rss <= 150 * MiB)}`,
    );
    // What users run: the command's own default, where it is not the compared one.
    const { defaultConcurrency } = KINDS[kind];
    if (defaultConcurrency !== CONCURRENCY) {
      const own = await runCli(kind, file, [], { rss: true });
      console.log(
        `  peak RSS, concurrency ${defaultConcurrency} (its default) ${(own.rss / MiB).toFixed(1)} MiB  goal ≤ 150 MiB: ${verdict(own.rss <= 150 * MiB)}`,
      );
    }
    console.log(`  rerun, every row skipped ${seconds(cli.rerunMs)} (no goal)`);
    const skipping = await runCli(kind, file, ["--concurrency", String(CONCURRENCY), "--skip-invalid"]);
    console.log(
      `  --skip-invalid          ${seconds(skipping.ms)}   ${(skipping.ms / base.ms).toFixed(2)}× the raw loop (no goal)`,
    );
    rmSync(file, { force: true });
  }
  const small = peaks.get(100_000);
  const large = peaks.get(1_000_000);
  if (small && large) {
    const growth = large / small;
    console.log(
      `  peak RSS 1M / 100k     ${growth.toFixed(2).padStart(7)}×    goal ≤ 1.3×: ${verdict(growth <= 1.3)}`,
    );
  }
}

if (only.has("base") && baseDir) {
  for (const kind of kinds) {
    for (const rows of sizes) {
      const file = await generate(kind, rows);
      const after = [];
      const before = [];
      for (let i = 0; i < runs; i++) {
        after.push(await runCli(kind, file, [], { rss: true }));
        before.push(await runCli(kind, file, [], { rss: true, cli: join(baseDir, "bin", "assess.js") }));
      }
      const ms = (xs) => median(xs.map((x) => x.ms));
      const rss = (xs) => median(xs.map((x) => x.rss)) / MiB;
      console.log(
        `\n${kind}: ${fmt(rows)} rows, this build against ${baseDir}, default concurrency, median of ${runs}`,
      );
      console.log(`  this build             ${seconds(ms(after))}   peak RSS ${rss(after).toFixed(1)} MiB`);
      console.log(`  base                   ${seconds(ms(before))}   peak RSS ${rss(before).toFixed(1)} MiB`);
      console.log(`  time, this / base      ${(ms(after) / ms(before)).toFixed(3).padStart(7)}×`);
      rmSync(file, { force: true });
    }
  }
}

if (only.has("ledger")) {
  const rows = Math.max(...sizes);
  for (const kind of kinds) {
    const file = await generate(kind, rows);
    const withLedger = [];
    const without = [];
    for (let i = 0; i < runs; i++) {
      withLedger.push((await runCli(kind, file, [], { cli: join(work, "cli-ledger.mjs") })).ms);
      without.push((await runCli(kind, file, [], { cli: join(work, "cli-no-ledger.mjs") })).ms);
    }
    const ratio = median(withLedger) / median(without);
    console.log(`\nledger: ${kind} of ${fmt(rows)} rows (default concurrency), median of ${runs}`);
    console.log(`  with the ledger        ${seconds(median(withLedger))}`);
    console.log(`  without (stubbed out)  ${seconds(median(without))}`);
    console.log(
      `  ledger overhead        ${((ratio - 1) * 100).toFixed(1).padStart(6)} %    goal ≤ 10 %: ${verdict(ratio <= 1.1)}`,
    );
    rmSync(file, { force: true });
  }
}

if (only.has("concurrency")) {
  const file = await generate("upsert", CONCURRENCY_ROWS);
  const one = await runCli("upsert", file, ["--concurrency", "1"], { latencyMs: LATENCY_MS });
  const byDefault = await runCli("upsert", file, [], { latencyMs: LATENCY_MS });
  const speedup = one.ms / byDefault.ms;
  console.log(
    `\nconcurrency: employees upsert of ${fmt(CONCURRENCY_ROWS)} rows, sandbox ${LATENCY_MS} ms late`,
  );
  console.log(`  --concurrency 1        ${seconds(one.ms)}`);
  console.log(`  default concurrency    ${seconds(byDefault.ms)}`);
  console.log(
    `  speed-up               ${speedup.toFixed(2).padStart(7)}×    goal ≥ 4×: ${verdict(speedup >= 4)}`,
  );
  rmSync(file, { force: true });
}

console.log(missed === 0 ? "\nall goals met" : `\n${missed} goal(s) missed`);
process.exitCode = missed === 0 ? 0 : 1;

/**
 * One CLI run against a fresh sandbox (so no run pays for the state another left), checked for every row
 * sent; with `rss`, its peak RSS and the time of a rerun that skips every row through the ledger.
 */
async function runCli(kind, file, extra, { rss = false, latencyMs = 0, cli = bin } = {}) {
  const rows = rowsIn(file);
  return withSandbox({ latencyMs }, async (sb) => {
    const env = {
      ASSESS_CONFIG_DIR: mkdtempSync(join(work, "config-")),
      ASSESS_BASE_URL: sb.url,
      ASSESS_SKILLS_BASE_URL: sb.skillsUrl,
      ASSESS_API_KEY: sb.key,
      BENCH_RSS_FILE: join(work, "rss"),
      NO_COLOR: "1",
      CI: "1",
    };
    const argv = [...KINDS[kind].argv(file), ...extra, "--json"];
    const run = await measure([...(rss ? ["--require", join(work, "maxrss.cjs")] : []), cli, ...argv], env);
    if (run.code !== 0) throw new Error(`assess exited ${run.code}: ${run.stderr.slice(-2000)}`);
    const summary = JSON.parse(run.stdout);
    if (summary.sent !== rows) throw new Error(`assess sent ${summary.sent} of ${rows} rows`);
    if (!rss) return { ms: run.ms };
    const again = await measure([cli, ...argv], env);
    if (again.code !== 0 || JSON.parse(again.stdout).alreadyDone !== rows)
      throw new Error(`the rerun did not skip every row: ${again.stderr.slice(-2000)}`);
    return { ms: run.ms, rss: Number(readFileSync(env.BENCH_RSS_FILE, "utf8")), rerunMs: again.ms };
  });
}

/** The raw loop: builds every request body first, then posts them with undici, `CONCURRENCY` in flight. */
async function baseline(kind, file, sb) {
  const url = `${kind === "upsert" ? sb.skillsUrl : sb.url}${KINDS[kind].path}`;
  const run = await measure([join(work, "baseline.mjs"), kind, file, url, sb.key, String(CONCURRENCY)], {});
  if (run.code !== 0) throw new Error(`baseline failed: ${run.stderr}`);
  const result = JSON.parse(run.stdout);
  if (result.rows !== rowsIn(file)) throw new Error(`baseline sent ${result.rows} rows`);
  return result;
}

async function generate(kind, rows) {
  const path = join(work, `${kind}-${rows}.csv`);
  const out = createWriteStream(path);
  out.write(`${KINDS[kind].header}\n`);
  let buffer = "";
  for (let i = 0; i < rows; i++) {
    buffer += `${KINDS[kind].row(i)}\n`;
    if (buffer.length > 1 << 16) {
      if (!out.write(buffer)) await new Promise((r) => out.once("drain", r));
      buffer = "";
    }
  }
  out.end(buffer);
  await new Promise((r) => out.once("finish", r));
  return path;
}

function rowsIn(file) {
  return Number(/-(\d+)\.csv$/.exec(file)[1]);
}

/** A fresh sandbox process per measurement. */
async function withSandbox({ latencyMs = 0 }, fn) {
  const sandbox = await startBundledSandbox(work, latencyMs);
  try {
    return await fn(sandbox);
  } finally {
    await sandbox.close();
  }
}

function measure(args, env) {
  return spawnNode(args, { env: { PATH: process.env.PATH, ...env } }).result;
}

async function writeHelpers() {
  await bundleSandbox(work);
  // Preloaded into the measured process: writes getrusage's peak RSS when it exits.
  writeFileSync(
    join(work, "maxrss.cjs"),
    `process.on("exit", () => require("node:fs").writeFileSync(process.env.BENCH_RSS_FILE, String(process.resourceUsage().maxRSS * 1024)));\n`,
  );
  // The raw loop: the same request bodies the CLI sends, built before the clock starts.
  writeFileSync(
    join(work, "baseline.mjs"),
    `import { readFileSync } from "node:fs";
import { Agent, request } from ${JSON.stringify(join(root, "node_modules", "undici", "index.js"))};
const [kind, file, url, key, concurrency] = process.argv.slice(2);
const perRequest = kind === "upsert" ? 100 : 1000;
const items = [];
for (const line of readFileSync(file, "utf8").split("\\n").slice(1)) {
  if (line === "") continue;
  const f = line.split(",");
  items.push(kind === "upsert"
    ? { email: f[0], firstName: f[1], lastName: f[2], employeeHRMSInfo: { externalEmployeeId: f[3], department: f[4] } }
    : { email: f[0], name: f[1] });
}
const bodies = [];
for (let i = 0; i < items.length; i += perRequest) {
  const chunk = items.slice(i, i + perRequest);
  bodies.push(JSON.stringify(kind === "upsert" ? chunk : { candidates: chunk }));
}
const rows = items.length;
items.length = 0;
const agent = new Agent({ keepAliveTimeout: 10_000 });
const started = performance.now();
let next = 0;
async function worker() {
  while (next < bodies.length) {
    const body = bodies[next++];
    const res = await request(url, { method: "POST", dispatcher: agent, headers: { "x-api-key": key, "content-type": "application/json" }, body });
    const text = await res.body.text();
    if (res.statusCode !== 200) throw new Error("HTTP " + res.statusCode + " " + text);
    if (kind === "invite" ? text.trim() !== "true" : JSON.parse(text).failed.length > 0) throw new Error(text.slice(0, 500));
  }
}
await Promise.all(Array.from({ length: Number(concurrency) }, worker));
const ms = performance.now() - started;
await agent.close();
process.stdout.write(JSON.stringify({ ms, requests: bodies.length, rows }));
`,
  );
  // The CLI bundled twice, identically but for the ledger: the second with a Ledger that keeps the keys in memory
  // and writes nothing (what the engine needs of it to dedupe and skip), to see what durability costs.
  const banner = {
    js: "import{createRequire as __assessRequire}from'node:module';const require=__assessRequire(import.meta.url);",
  };
  writeFileSync(
    join(work, "entry.ts"),
    `import { run } from ${JSON.stringify(join(root, "src", "cli.ts"))};\nvoid run({ checkWorker: new URL("./check-worker.mjs", import.meta.url) });\n`,
  );
  writeFileSync(
    join(work, "no-ledger.ts"),
    `import { KeySet } from ${JSON.stringify(join(root, "src", "bulk", "storage", "keyset.ts"))};
export class Ledger {
  readonly path = "(no ledger)";
  readonly skippedLines = 0;
  readonly keys: KeySet;
  private constructor(expected: number) { this.keys = new KeySet(Math.max(1024, expected)); }
  static async open(_dir: string, _kind: string, _target: unknown, options: { expected?: number } = {}) { return new Ledger(options.expected ?? 0); }
  async prepare(): Promise<void> {}
  async begin(): Promise<void> {}
  async end(): Promise<void> {}
  async close(): Promise<void> {}
}
export const skippedWarning = (): string => "";
export const ledgerError = (_path: string, error: unknown): unknown => error;
`,
  );
  const noLedger = {
    name: "no-ledger",
    setup(b) {
      b.onResolve({ filter: /^\.\/ledger\.js$/ }, (args) =>
        args.importer.endsWith(join("src", "bulk", "engine", "send.ts"))
          ? { path: join(work, "no-ledger.ts") }
          : undefined,
      );
    },
  };
  // Both find the worker that checks half of a large file beside them, as dist/cli.js does.
  for (const [name, plugins, entry] of [
    ["cli-ledger.mjs", []],
    ["cli-no-ledger.mjs", [noLedger]],
    ["check-worker.mjs", [], join(root, "src", "bulk", "rows", "check-worker.ts")],
  ]) {
    await build({
      entryPoints: [entry ?? join(work, "entry.ts")],
      bundle: true,
      platform: "node",
      format: "esm",
      target: "node20",
      banner,
      outfile: join(work, name),
      plugins: [...plugins, verbsPlugin(join(root, "src"))],
      logLevel: "warning",
    });
  }
}
