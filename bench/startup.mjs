#!/usr/bin/env node
// Start-up time of the built CLI against bare `node -e 0`, measured in one run on this machine and reported
// as ratios (the goals are ratios, so a slow or busy machine does not move them much).
// Usage: npm run bench:startup [-- --runs 30] [-- --base DIR]
// --base DIR: also runs the built CLI of another checkout (say, a `git worktree` of main, built there),
// interleaved with this one, to compare a change with what it changes.
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const bin = join(root, "bin", "assess.js");
const runsArg = process.argv.indexOf("--runs");
const runs = runsArg > 0 ? Number(process.argv[runsArg + 1]) : 30;

const baseArg = process.argv.indexOf("--base");
const baseBin = baseArg > 0 ? join(process.argv[baseArg + 1], "bin", "assess.js") : undefined;

const configDir = mkdtempSync(join(tmpdir(), "assess-bench-"));
const sandbox = await startSandboxProcess();
const env = {
  ...process.env,
  ASSESS_CONFIG_DIR: configDir,
  ASSESS_BASE_URL: sandbox.url,
  ASSESS_SKILLS_BASE_URL: sandbox.skillsUrl,
  ASSESS_API_KEY: sandbox.key,
  NO_COLOR: "1",
};

const cases = [
  { name: "node -e 0", args: ["-e", "0"] },
  { name: "assess --version", args: [bin, "--version"], goal: 1.25 },
  { name: "assess --help", args: [bin, "--help"], goal: 1.25 },
  { name: "assess tests list (sandbox)", args: [bin, "tests", "list", "-o", "json"], goal: 2 },
];
if (baseBin) {
  for (const c of cases.slice(1)) {
    cases.push({ ...c, name: `${c.name} [base]`, args: [baseBin, ...c.args.slice(1)] });
  }
}

// Warm the file cache, then interleave the cases so drift in machine load hits all of them alike.
for (const c of cases) time(c.args);
const samples = new Map(cases.map((c) => [c.name, []]));
for (let i = 0; i < runs; i++) for (const c of cases) samples.get(c.name).push(time(c.args));

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const base = median(samples.get("node -e 0"));
console.log(
  `machine: ${cpus()[0]?.model ?? "?"} x${cpus().length}, node ${process.version}, load ${loadavg()[0].toFixed(2)}, ${runs} runs each, medians`,
);
let failed = 0;
for (const c of cases) {
  const ms = median(samples.get(c.name));
  const ratio = ms / base;
  const verdict =
    c.goal === undefined ? "" : ratio <= c.goal ? `goal ≤ ${c.goal}× met` : `goal ≤ ${c.goal}× MISSED`;
  if (c.goal !== undefined && ratio > c.goal) failed++;
  console.log(`${c.name.padEnd(37)} ${ms.toFixed(1).padStart(7)} ms  ${ratio.toFixed(2)}×  ${verdict}`);
}
sandbox.child.kill();
rmSync(configDir, { recursive: true, force: true });
process.exitCode = failed > 0 ? 1 : 0;

function time(args) {
  const start = process.hrtime.bigint();
  const result = spawnSync(process.execPath, args, { env, stdio: ["ignore", "ignore", "pipe"] });
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  if (result.status !== 0) throw new Error(`${args.join(" ")} exited ${result.status}: ${result.stderr}`);
  return ms;
}

/** The sandbox runs in its own process so its start-up and work are not counted. */
function startSandboxProcess() {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, "sandbox", "--port", "0", "--json"], {
      env: { ...process.env, ASSESS_CONFIG_DIR: configDir },
      stdio: ["ignore", "pipe", "ignore"],
    });
    let out = "";
    child.stdout.on("data", (chunk) => {
      out += chunk;
      try {
        const info = JSON.parse(out);
        resolve({ child, url: info.url, skillsUrl: info.skillsUrl, key: info.keys.acme });
      } catch {
        // not complete yet
      }
    });
    child.on("exit", (code) => reject(new Error(`sandbox exited ${code}`)));
  });
}
