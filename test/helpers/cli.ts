import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough, Readable } from "node:stream";
import { main } from "../../src/cli.js";
import type { Io } from "../../src/context.js";
import { SANDBOX_KEYS, type Sandbox, type SandboxOptions, startSandbox } from "../../src/sandbox/index.js";

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
  /** stdout parsed as JSON (throws if it is not). */
  json<T = unknown>(): T;
}

export interface RunOptions {
  env?: Record<string, string | undefined>;
  stdin?: string | Buffer;
  /** Pretend stdout/stdin are terminals (prompts still need a real TTY, see the wizard tests). */
  tty?: boolean;
  signal?: AbortSignal;
  /** dist/check-worker.cjs (built by the global setup): what the built CLI passes, for split checks. */
  checkWorker?: URL;
}

/** Runs `main(argv)` in-process with captured stdout/stderr; no process.exit, no shared state. */
export async function runCli(argv: string[], options: RunOptions = {}): Promise<RunResult> {
  const stdout = capture(options.tty);
  const stderr = capture(options.tty);
  const stdin = Readable.from(options.stdin === undefined ? [] : [Buffer.from(options.stdin)]) as Io["stdin"];
  stdin.isTTY = options.tty;
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, NO_COLOR: "1", ...options.env };
  for (const [key, value] of Object.entries(env)) if (value === undefined) delete env[key];
  const code = await main(
    argv,
    { stdout: stdout.stream, stderr: stderr.stream, stdin, env },
    { signal: options.signal, checkWorker: options.checkWorker },
  );
  const out = stdout.text();
  return {
    code,
    stdout: out,
    stderr: stderr.text(),
    json<T>() {
      return JSON.parse(out) as T;
    },
  };
}

function capture(tty?: boolean) {
  const chunks: Buffer[] = [];
  const stream = new PassThrough() as PassThrough & { isTTY?: boolean; columns?: number };
  stream.isTTY = tty;
  stream.columns = 120;
  stream.on("data", (chunk: Buffer) => chunks.push(chunk));
  return { stream, text: () => Buffer.concat(chunks).toString("utf8") };
}

/**
 * A sandbox on an ephemeral loopback port with both APIs behind path prefixes (as the real service may be),
 * a temp config dir, and `run()` already pointed at them with the demo "acme" key.
 */
export interface TestEnv {
  sandbox: Sandbox;
  configDir: string;
  env: Record<string, string>;
  run(argv: string[], options?: RunOptions): Promise<RunResult>;
  close(): Promise<void>;
}

export async function startTestEnv(options: SandboxOptions = {}): Promise<TestEnv> {
  const sandbox = await startSandbox({ assessPrefix: "/api", skillsPrefix: "/skills", ...options });
  const configDir = mkdtempSync(join(tmpdir(), "assess-test-"));
  const env = {
    ASSESS_BASE_URL: sandbox.url,
    ASSESS_SKILLS_BASE_URL: sandbox.skillsUrl,
    ASSESS_API_KEY: SANDBOX_KEYS.acme,
    ASSESS_CONFIG_DIR: configDir,
  };
  return {
    sandbox,
    configDir,
    env,
    run: (argv, runOptions = {}) => runCli(argv, { ...runOptions, env: { ...env, ...runOptions.env } }),
    async close() {
      await sandbox.close();
      rmSync(configDir, { recursive: true, force: true });
    },
  };
}

export { SANDBOX_KEYS };

const BIN = join(import.meta.dirname, "..", "..", "bin", "assess.js");

/**
 * Runs the built CLI (`node bin/assess.js`, built by the global setup) in a child process, as a user's shell
 * would, stdin, stdout and stderr on pipes. Not synchronous: a sandbox of the test answers from this process.
 */
export function runBin(
  argv: string[],
  options: { env?: Record<string, string | undefined>; stdin?: string | Buffer; cwd?: string } = {},
): Promise<RunResult> {
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, NO_COLOR: "1", ...options.env };
  for (const [key, value] of Object.entries(env)) if (value === undefined) delete env[key];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...argv], { cwd: options.cwd, env, stdio: "pipe" });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on("data", (chunk: Buffer) => out.push(chunk));
    child.stderr.on("data", (chunk: Buffer) => err.push(chunk));
    child.stdin.on("error", () => undefined);
    child.stdin.end(options.stdin ?? "");
    child.on("error", reject);
    child.on("close", (code, signal) => {
      const stdout = Buffer.concat(out).toString("utf8");
      resolve({
        code: code ?? (signal ? 128 : -1),
        stdout,
        stderr: Buffer.concat(err).toString("utf8"),
        json<T>() {
          return JSON.parse(stdout) as T;
        },
      });
    });
  });
}
