#!/usr/bin/env node
// Bulk-invite throughput and memory of the built CLI, against a raw undici loop posting the same chunks.
//
// For 100k and 1M generated rows: wall time, rows/s and peak RSS of `node bin/assess.js invite bulk`
// against a sandbox in a separate process (request bodies not recorded), then the same file posted by a
// minimal undici loop (same chunks of 1000, same concurrency) against a fresh sandbox, as the baseline.
// Goals: CLI time ≤ 1.5× the baseline's, peak RSS ≤ 150 MiB, 1M-row peak ≤ 1.3× the 100k-row peak.
//
// Usage: npm run bench:bulk [-- --sizes 100000,1000000 --concurrency 4 --keep]
import { spawn } from "node:child_process";
import { createWriteStream, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { cpus, tmpdir, totalmem } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const bin = join(root, "bin", "assess.js");
const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : fallback;
};
const sizes = arg("sizes", "100000,1000000").split(",").map(Number);
const concurrency = Number(arg("concurrency", "4"));
const keep = process.argv.includes("--keep");
const MiB = 1024 * 1024;
const GOALS = { timeRatio: 1.5, rssMiB: 150, rssGrowth: 1.3 };

const work = mkdtempSync(join(tmpdir(), "assess-bench-bulk-"));
process.on("exit", () => {
  if (!keep) rmSync(work, { recursive: true, force: true });
});

// The sandbox, bundled on its own so it can run in a plain node process with recordBodies off.
await build({
  entryPoints: [join(root, "src", "sandbox", "index.ts")],
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  outfile: join(work, "sandbox.mjs"),
  logLevel: "warning",
});
writeFileSync(
  join(work, "serve.mjs"),
  `import { startSandbox, SANDBOX_KEYS } from "./sandbox.mjs";
const sb = await startSandbox({ recordBodies: false });
process.stdout.write(JSON.stringify({ url: sb.url, skillsUrl: sb.skillsUrl, key: SANDBOX_KEYS.acme }) + "\\n");
process.stdin.resume();
process.stdin.on("end", () => sb.close().then(() => process.exit(0)));
`,
);
// Loaded into the measured process with --import: reports getrusage's peak RSS when it exits.
writeFileSync(
  join(work, "maxrss.mjs"),
  `import { writeFileSync } from "node:fs";
process.on("exit", () => writeFileSync(process.env.BENCH_RSS_FILE, String(process.resourceUsage().maxRSS * 1024)));
`,
);
// The baseline: read lines, make chunks of 1000, POST them with undici, N in flight. Nothing else.
writeFileSync(
  join(work, "baseline.mjs"),
  `import { createReadStream } from "node:fs";
import { createInterface } from "node:readline";
import { Agent, request } from ${JSON.stringify(join(root, "node_modules", "undici", "index.js"))};
const [file, url, key, concurrency] = process.argv.slice(2);
const agent = new Agent({ keepAliveTimeout: 10_000 });
const inflight = new Set();
let chunk = [];
let header = true;
let sent = 0;
const post = async (candidates) => {
  const res = await request(url, { method: "POST", dispatcher: agent, headers: { "x-api-key": key, "content-type": "application/json" }, body: JSON.stringify({ candidates }) });
  const text = await res.body.text();
  if (res.statusCode !== 200 || text.trim() !== "true") throw new Error("HTTP " + res.statusCode + " " + text);
  sent += candidates.length;
};
const flush = async () => {
  const p = post(chunk).finally(() => inflight.delete(p));
  inflight.add(p);
  chunk = [];
  if (inflight.size >= Number(concurrency)) await Promise.race(inflight);
};
for await (const line of createInterface({ input: createReadStream(file) })) {
  if (header) { header = false; continue; }
  const comma = line.indexOf(",");
  chunk.push({ email: line.slice(0, comma), name: line.slice(comma + 1) });
  if (chunk.length === 1000) await flush();
}
if (chunk.length > 0) await flush();
await Promise.all(inflight);
await agent.close();
process.stdout.write(String(sent));
`,
);

console.log(
  `machine: ${cpus()[0]?.model ?? "?"} x${cpus().length}, ${Math.round(totalmem() / 1024 ** 3)} GiB, node ${process.version}; concurrency ${concurrency}`,
);
const results = [];
for (const rows of sizes) {
  const file = join(work, `candidates-${rows}.csv`);
  await generate(file, rows);

  const cli = await withSandbox(async (sb) => {
    const configDir = mkdtempSync(join(work, "config-"));
    const rssFile = join(work, `rss-${rows}`);
    const run = await measure(
      [
        "--import",
        join(work, "maxrss.mjs"),
        bin,
        "invite",
        "bulk",
        file,
        "--test",
        "1001",
        "--concurrency",
        String(concurrency),
        "--json",
      ],
      {
        ASSESS_CONFIG_DIR: configDir,
        ASSESS_BASE_URL: sb.url,
        ASSESS_SKILLS_BASE_URL: sb.skillsUrl,
        ASSESS_API_KEY: sb.key,
        BENCH_RSS_FILE: rssFile,
        NO_COLOR: "1",
        CI: "1",
      },
    );
    if (run.code !== 0) throw new Error(`assess exited ${run.code}: ${run.stderr.slice(-2000)}`);
    const summary = JSON.parse(run.stdout);
    if (summary.sent !== rows) throw new Error(`assess sent ${summary.sent} of ${rows} rows`);
    const rss = Number(readFileSync(rssFile, "utf8"));
    // A rerun skips every row through the ledger: how long does "nothing to do" take?
    const again = await measure([bin, "invite", "bulk", file, "--test", "1001", "--json"], {
      ASSESS_CONFIG_DIR: configDir,
      ASSESS_BASE_URL: sb.url,
      ASSESS_API_KEY: sb.key,
      CI: "1",
    });
    if (again.code !== 0 || JSON.parse(again.stdout).alreadyDone !== rows)
      throw new Error("the rerun did not skip every row");
    return { ms: run.ms, rss, rerunMs: again.ms };
  });

  // Informational: the same run without the validate-first pass (--skip-invalid reads the file once).
  const onePass = await withSandbox(async (sb) => {
    const run = await measure(
      [
        bin,
        "invite",
        "bulk",
        file,
        "--test",
        "1001",
        "--skip-invalid",
        "--concurrency",
        String(concurrency),
        "--json",
      ],
      {
        ASSESS_CONFIG_DIR: mkdtempSync(join(work, "config-")),
        ASSESS_BASE_URL: sb.url,
        ASSESS_API_KEY: sb.key,
        CI: "1",
      },
    );
    if (run.code !== 0 || JSON.parse(run.stdout).sent !== rows)
      throw new Error(`one-pass run failed: ${run.stderr.slice(-2000)}`);
    return { ms: run.ms };
  });

  const baseline = await withSandbox(async (sb) => {
    const run = await measure(
      [join(work, "baseline.mjs"), file, `${sb.url}/v3/tests/1001/invite/bulk`, sb.key, String(concurrency)],
      {},
    );
    if (run.code !== 0 || Number(run.stdout) !== rows) throw new Error(`baseline failed: ${run.stderr}`);
    return { ms: run.ms };
  });
  results.push({ rows, cli, baseline, onePass });
  rmSync(file, { force: true });
}

let missed = 0;
const check = (ok) => {
  if (!ok) missed++;
  return ok ? "met" : "MISSED";
};
const fmt = (n) => n.toLocaleString("en-US");
console.log("");
for (const { rows, cli, baseline, onePass } of results) {
  const ratio = cli.ms / baseline.ms;
  console.log(`${fmt(rows)} rows`);
  console.log(
    `  assess invite bulk   ${(cli.ms / 1000).toFixed(2).padStart(7)} s   ${fmt(Math.round(rows / (cli.ms / 1000))).padStart(9)} rows/s`,
  );
  console.log(
    `  raw undici baseline  ${(baseline.ms / 1000).toFixed(2).padStart(7)} s   ${fmt(Math.round(rows / (baseline.ms / 1000))).padStart(9)} rows/s`,
  );
  console.log(
    `  time vs baseline     ${ratio.toFixed(2).padStart(7)}×    goal ≤ ${GOALS.timeRatio}×: ${check(ratio <= GOALS.timeRatio)}`,
  );
  console.log(
    `  peak RSS (assess)    ${(cli.rss / MiB).toFixed(1).padStart(7)} MiB goal ≤ ${GOALS.rssMiB} MiB: ${check(cli.rss / MiB <= GOALS.rssMiB)}`,
  );
  console.log(`  rerun, all skipped   ${(cli.rerunMs / 1000).toFixed(2).padStart(7)} s   (no goal)`);
  console.log(
    `  --skip-invalid       ${(onePass.ms / 1000).toFixed(2).padStart(7)} s   one pass, no validate-first read (${(onePass.ms / baseline.ms).toFixed(2)}×, no goal)`,
  );
}
const small = results.find((r) => r.rows === 100_000);
const large = results.find((r) => r.rows === 1_000_000);
if (small && large) {
  const growth = large.cli.rss / small.cli.rss;
  console.log(
    `peak RSS 1M / 100k      ${growth.toFixed(2).padStart(7)}×    goal ≤ ${GOALS.rssGrowth}×: ${check(growth <= GOALS.rssGrowth)}`,
  );
}
console.log(missed === 0 ? "\nall goals met" : `\n${missed} goal(s) missed`);
process.exitCode = missed === 0 ? 0 : 1;

async function generate(path, rows) {
  const out = createWriteStream(path);
  out.write("email,name\n");
  let buffer = "";
  for (let i = 0; i < rows; i++) {
    buffer += `candidate${i}@example.com,Candidate Number ${i}\n`;
    if (buffer.length > 1 << 16) {
      if (!out.write(buffer)) await new Promise((r) => out.once("drain", r));
      buffer = "";
    }
  }
  out.end(buffer);
  await new Promise((r) => out.once("finish", r));
}

/** A fresh sandbox process per measurement, so no run pays for the state another left. */
async function withSandbox(fn) {
  const child = spawn(process.execPath, [join(work, "serve.mjs")], { stdio: ["pipe", "pipe", "inherit"] });
  const info = await new Promise((resolve, reject) => {
    let out = "";
    child.stdout.on("data", (chunk) => {
      out += chunk;
      if (out.includes("\n")) resolve(JSON.parse(out));
    });
    child.on("exit", (code) => reject(new Error(`sandbox exited ${code}`)));
  });
  try {
    return await fn(info);
  } finally {
    child.stdin.end();
    await new Promise((r) => child.once("exit", r));
  }
}

function measure(args, env) {
  return new Promise((resolve) => {
    const started = process.hrtime.bigint();
    const child = spawn(process.execPath, args, {
      env: { PATH: process.env.PATH, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c) => {
      stdout += c;
    });
    child.stderr.on("data", (c) => {
      stderr += c;
    });
    child.on("exit", (code) =>
      resolve({ code, stdout, stderr, ms: Number(process.hrtime.bigint() - started) / 1e6 }),
    );
  });
}
