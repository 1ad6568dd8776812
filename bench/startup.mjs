#!/usr/bin/env node
// Start-up time of the built CLI against bare `node -e 0`, measured in one run on this machine and reported
// as ratios (the goals are ratios, so a slow or busy machine does not move them much). Every process, bare
// node's too, runs in a clean environment (PATH, a fresh HOME and config folder, the sandbox's address and
// key): a variable such as NODE_EXTRA_CA_CERTS adds the same fixed cost (~90 ms for a large bundle of
// certificates) to both sides of each ratio and hides what the CLI itself costs.
// Usage: npm run bench:startup [-- --runs 30] [-- --base DIR]
// --base DIR: also runs the built CLI of another checkout (say, a `git worktree` of main, built there),
// interleaved with this one, to compare a change with what it changes.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { arg, bin, machineLine, median, root, startCliSandbox } from "./common.mjs";

const runs = Number(arg("runs", "30"));
const baseDir = arg("base", undefined);
const baseBin = baseDir ? join(baseDir, "bin", "assess.js") : undefined;

const work = mkdtempSync(join(tmpdir(), "assess-bench-"));
const configDir = join(work, "config");
/** What a process needs to start (and Windows to run Node); nothing of the shell that runs the bench. */
const clean = Object.fromEntries(
  ["PATH", "SystemRoot"]
    .filter((name) => process.env[name] !== undefined)
    .map((name) => [name, process.env[name]]),
);
clean.HOME = join(work, "home");
// In its own process, so that its start-up and work are not counted.
const sandbox = await startCliSandbox({ ...clean, ASSESS_CONFIG_DIR: join(work, "sandbox") });
const env = {
  ...clean,
  ASSESS_CONFIG_DIR: configDir,
  ASSESS_BASE_URL: sandbox.url,
  ASSESS_SKILLS_BASE_URL: sandbox.skillsUrl,
  ASSESS_API_KEY: sandbox.keys.acme,
  NO_COLOR: "1",
};

// Floors for `tests list`, shown without a goal: the same GET of /v3/tests and its body written out, by
// node:http alone, and by the build's undici bundle (compiled from source: no code cache) with --liftoff-only
// set as the CLI sets it (src/runtime/v8-flags.ts). Our own code is what `tests list` costs above the second.
const testsUrl = JSON.stringify(`${sandbox.url}/v3/tests`);
const headers = JSON.stringify({ "x-api-key": sandbox.keys.acme });
const rawHttp = join(work, "raw-http.cjs");
writeFileSync(
  rawHttp,
  `require("node:http").get(${testsUrl}, { headers: ${headers} }, (res) => {
  let body = "";
  res.on("data", (chunk) => (body += chunk));
  res.on("end", () => process.stdout.write(body));
});
`,
);
const undiciBundle = readdirSync(join(root, "dist")).find((file) => /^undici-\w+\.cjs$/.test(file));
const rawUndici = join(work, "raw-undici.cjs");
writeFileSync(
  rawUndici,
  `const channels = require("node:diagnostics_channel");
const liftoff = () => {
  channels.unsubscribe("undici:client:beforeConnect", liftoff);
  require("node:v8").setFlagsFromString("--liftoff-only");
};
channels.subscribe("undici:client:beforeConnect", liftoff);
const { Agent, request } = require(${JSON.stringify(join(root, "dist", undiciBundle))});
const agent = new Agent();
request(agent, ${testsUrl}, { method: "GET", headers: ${headers} }).then(async (res) => {
  process.stdout.write(await res.body.text());
  await agent.close();
});
`,
);

const cases = [
  { name: "node -e 0", args: ["-e", "0"] },
  { name: "GET /v3/tests, node:http", args: [rawHttp] },
  { name: "GET /v3/tests, undici bundle", args: [rawUndici] },
  { name: "assess --version", args: [bin, "--version"], goal: 1.25 },
  { name: "assess --help", args: [bin, "--help"], goal: 1.25 },
  { name: "assess tests list (sandbox)", args: [bin, "tests", "list", "-o", "json"], goal: 2 },
];
if (baseBin) {
  for (const c of cases.filter((c) => c.goal !== undefined)) {
    cases.push({ ...c, name: `${c.name} [base]`, args: [baseBin, ...c.args.slice(1)] });
  }
}

// Warm the file cache, then interleave the cases so drift in machine load hits all of them alike.
for (const c of cases) time(c.args);
const samples = new Map(cases.map((c) => [c.name, []]));
for (let i = 0; i < runs; i++) for (const c of cases) samples.get(c.name).push(time(c.args));

const base = median(samples.get("node -e 0"));
console.log(`${machineLine()}, ${runs} runs each, medians, clean environment`);
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
rmSync(work, { recursive: true, force: true });
process.exitCode = failed > 0 ? 1 : 0;

function time(args) {
  const start = process.hrtime.bigint();
  const result = spawnSync(process.execPath, args, { env, stdio: ["ignore", "ignore", "pipe"] });
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  if (result.status !== 0) throw new Error(`${args.join(" ")} exited ${result.status}: ${result.stderr}`);
  return ms;
}
