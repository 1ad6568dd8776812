#!/usr/bin/env node
// A nightly HR sync of 10,000 employees where 1 % changed, the built CLI against the sandbox (in a
// process of its own, request bodies not recorded, each request answered --latency ms late), three ways:
//
//   upsert, no ledger   `employees upsert nightly.csv` from a fresh config folder (a CI job, another machine):
//                       every row is sent, 100 per request
//   upsert, ledger      the same from the folder that uploaded yesterday's file: rows identical to rows it got
//                       confirmed are skipped (blind to changes made on the service since, and nobody leaves)
//   sync                `employees sync nightly.csv --yes`: lists every employee (100 per page), then upserts
//                       only the new and changed rows (`sync --plan`: the reads alone)
//
// Each run gets a fresh sandbox seeded with yesterday's file (10,000 employees) by `employees upsert`; the
// requests are counted by the sandbox. Median of --runs.
//
// Usage: npm run build && node bench/sync.mjs [-- --rows 10000 --changed 0.01 --latency 0,20 --runs 3]
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { arg, bin, bundleSandbox, machineLine, spawnNode, startBundledSandbox } from "./common.mjs";

const ROWS = Number(arg("rows", "10000"));
const CHANGED = Number(arg("changed", "0.01"));
const latencies = arg("latency", "0,20").split(",").map(Number);
const runs = Number(arg("runs", "3"));

const work = mkdtempSync(join(tmpdir(), "assess-bench-sync-"));
process.on("exit", () => rmSync(work, { recursive: true, force: true }));

const HEADER = "email,firstName,lastName,externalEmployeeId,department";
const row = (i, department) => `employee${i}@example.com,First${i},Last${i},EXT-${i},${department}`;
const every = Math.round(1 / CHANGED);
writeFileSync(
  join(work, "yesterday.csv"),
  `${[HEADER, ...Array.from({ length: ROWS }, (_, i) => row(i, `Department ${i % 50}`))].join("\n")}\n`,
);
writeFileSync(
  join(work, "nightly.csv"),
  `${[HEADER, ...Array.from({ length: ROWS }, (_, i) => row(i, i % every === 0 ? "Moved" : `Department ${i % 50}`))].join("\n")}\n`,
);

await bundleSandbox(work);

console.log(machineLine());
console.log(
  `${ROWS.toLocaleString("en-US")} employees, ${CHANGED * 100} % changed (department), median of ${runs}\n`,
);

const WAYS = {
  "upsert, no ledger": { argv: ["employees", "upsert", "nightly.csv", "--json"], config: "fresh" },
  "upsert, ledger": { argv: ["employees", "upsert", "nightly.csv", "--json"], config: "seeded" },
  "sync --plan": { argv: ["employees", "sync", "nightly.csv", "--plan", "--json"], config: "fresh" },
  sync: { argv: ["employees", "sync", "nightly.csv", "--yes", "--json"], config: "fresh" },
};

for (const latency of latencies) {
  console.log(`latency ${latency} ms per request`);
  for (const [name, way] of Object.entries(WAYS)) {
    const measured = [];
    for (let run = 0; run < runs; run++) measured.push(await measure(latency, way));
    measured.sort((a, b) => a.ms - b.ms);
    const m = measured[Math.floor(measured.length / 2)];
    console.log(
      `  ${name.padEnd(18)} ${String(m.requests).padStart(5)} requests (${m.reads} reads, ${m.writes} writes, ${m.upserted.toLocaleString("en-US")} employees sent)  ${(m.ms / 1000).toFixed(2)} s`,
    );
  }
}

async function measure(latency, way) {
  const sandbox = await startBundledSandbox(work, latency);
  try {
    const seeded = join(work, `config-seeded-${Math.random().toString(36).slice(2)}`);
    await assess(["employees", "upsert", "yesterday.csv"], sandbox, seeded);
    await control(sandbox, "DELETE");
    const config =
      way.config === "seeded" ? seeded : join(work, `config-${Math.random().toString(36).slice(2)}`);
    const started = performance.now();
    const summary = JSON.parse(await assess(way.argv, sandbox, config));
    const ms = performance.now() - started;
    const requests = (await control(sandbox, "GET")).filter((r) => r.api !== "control");
    const writes = requests.filter((r) => r.method !== "GET");
    return {
      ms,
      requests: requests.length,
      reads: requests.length - writes.length,
      writes: writes.length,
      // The employees the run sent: the upsert's summary, or the sync's (null when it had nothing to send).
      upserted: summary.counts ? (summary.upsert?.sent ?? 0) : summary.sent,
    };
  } finally {
    await sandbox.close();
  }
}

function control(sandbox, method) {
  return fetch(`${sandbox.url}/_sandbox/requests`, { method }).then((r) => r.json());
}

async function assess(argv, sandbox, config) {
  const r = await spawnNode([bin, ...argv], {
    cwd: work,
    env: {
      PATH: process.env.PATH,
      NO_COLOR: "1",
      ASSESS_BASE_URL: sandbox.url,
      ASSESS_SKILLS_BASE_URL: sandbox.skillsUrl,
      ASSESS_API_KEY: sandbox.key,
      ASSESS_CONFIG_DIR: config,
    },
  }).result;
  if (r.code !== 0) throw new Error(`assess ${argv.join(" ")} exited ${r.code}:\n${r.stderr}`);
  return r.stdout;
}
