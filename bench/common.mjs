// What the bench scripts share: where the built CLI is, their --flags, the machine line every report starts
// with, medians, and a sandbox in a process of its own (so its work is not counted as the CLI's).
import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { cpus, loadavg, totalmem } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { build } from "esbuild";
import { verbsPlugin } from "../src/commands/verb-files.mjs";

export const root = join(dirname(fileURLToPath(import.meta.url)), "..");
export const bin = join(root, "bin", "assess.js");

/** The value after `--name` on the command line, or `fallback`. */
export function arg(name, fallback) {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : fallback;
}

export function machineLine() {
  return `machine: ${cpus()[0]?.model ?? "?"} x${cpus().length}, ${Math.round(totalmem() / 1024 ** 3)} GiB, node ${process.version}, load ${loadavg()[0].toFixed(2)}`;
}

export function median(xs) {
  return [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
}

/**
 * Runs `node ...args` with its output collected: `{ child, result }`, the result (once its streams close)
 * `{ code, signal, stdout, stderr, ms }`.
 */
export function spawnNode(args, { env, cwd } = {}) {
  const started = process.hrtime.bigint();
  const child = spawn(process.execPath, args, { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk) => {
    stdout += chunk;
  });
  child.stderr.on("data", (chunk) => {
    stderr += chunk;
  });
  const result = new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code, signal) =>
      resolve({ code, signal, stdout, stderr, ms: Number(process.hrtime.bigint() - started) / 1e6 }),
    );
  });
  return { child, result };
}

/**
 * Bundles the sandbox into `work` with a server script around it: request bodies not recorded, each request
 * answered `BENCH_LATENCY_MS` late; it prints its addresses as one JSON line and stops when its stdin ends.
 */
export async function bundleSandbox(work) {
  await build({
    entryPoints: [join(root, "src", "sandbox", "index.ts")],
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    outfile: join(work, "sandbox.mjs"),
    logLevel: "warning",
    plugins: [verbsPlugin(join(root, "src"))],
  });
  writeFileSync(
    join(work, "serve.mjs"),
    `import { startSandbox, SANDBOX_KEYS } from "./sandbox.mjs";
const sb = await startSandbox({ recordBodies: false, latencyMs: Number(process.env.BENCH_LATENCY_MS) });
process.stdout.write(JSON.stringify({ url: sb.url, skillsUrl: sb.skillsUrl, key: SANDBOX_KEYS.acme }) + "\\n");
process.stdin.resume();
process.stdin.on("end", () => sb.close().then(() => process.exit(0)));
`,
  );
}

/** Starts the bundled sandbox of `bundleSandbox(work)`: `{ url, skillsUrl, key, close() }` (close waits for its exit). */
export function startBundledSandbox(work, latencyMs = 0) {
  const child = spawn(process.execPath, [join(work, "serve.mjs")], {
    env: { ...process.env, BENCH_LATENCY_MS: String(latencyMs) },
    stdio: ["pipe", "pipe", "inherit"],
  });
  const exited = new Promise((resolve) => child.once("exit", resolve));
  return new Promise((resolve, reject) => {
    let out = "";
    child.stdout.on("data", (chunk) => {
      out += chunk;
      if (!out.includes("\n")) return;
      resolve({
        ...JSON.parse(out),
        close: () => {
          child.stdin.end();
          return exited;
        },
      });
    });
    child.on("error", reject);
    child.on("exit", (code) => reject(new Error(`the sandbox exited (${code}) before it listened`)));
  });
}

/** `assess sandbox --port 0 --json` of the built CLI: `{ child, url, skillsUrl, keys }` once it listens. */
export function startCliSandbox(env) {
  const child = spawn(process.execPath, [bin, "sandbox", "--port", "0", "--json"], {
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stderr.resume();
  return new Promise((resolve, reject) => {
    let out = "";
    child.on("exit", (code) => reject(new Error(`the sandbox exited (${code}) before it listened`)));
    child.stdout.on("data", (chunk) => {
      out += chunk;
      try {
        resolve({ child, ...JSON.parse(out) });
      } catch {
        // not the whole JSON document yet
      }
    });
  });
}

/**
 * Bundles `source` (TypeScript whose imports resolve from the repository's root: parts of src/ or of test/ that
 * a script drives in-process) into `work` as `name.mjs`, and imports it.
 */
export async function importBundled(work, name, source) {
  const outfile = join(work, `${name}.mjs`);
  await build({
    stdin: { contents: source, resolveDir: root, loader: "ts", sourcefile: `${name}.ts` },
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    outfile,
    logLevel: "warning",
    plugins: [verbsPlugin(join(root, "src"))],
    // The CommonJS packages in the bundle (commander) require Node's modules.
    banner: {
      js: 'import { createRequire as bundleRequire } from "node:module"; const require = bundleRequire(import.meta.url);',
    },
  });
  return import(pathToFileURL(outfile).href);
}
