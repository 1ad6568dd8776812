import { type ChildProcess, type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough, Readable } from "node:stream";
import { pathToFileURL } from "node:url";
import { afterAll, afterEach, beforeAll, beforeEach, onTestFinished, TestRunner } from "vitest";
import { main } from "../../src/cli.js";
import type { Io } from "../../src/context.js";
import { SANDBOX_KEYS, type Sandbox, type SandboxOptions, startSandbox } from "../../src/sandbox/index.js";
import { untilFileEnds } from "./stops.js";

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
  /** The size from which a bulk file is checked in two halves with `checkWorker` (8 MiB): a small file's split. */
  splitFrom?: number;
}

/** Runs `main(argv)` in-process with captured stdout/stderr; no process.exit, no shared state. */
export async function runCli(argv: string[], options: RunOptions = {}): Promise<RunResult> {
  const stdout = capture(options.tty);
  const stderr = capture(options.tty);
  const stdin = Readable.from(options.stdin === undefined ? [] : [Buffer.from(options.stdin)]) as Io["stdin"];
  stdin.isTTY = options.tty;
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, NO_COLOR: "1", ...options.env };
  for (const [key, value] of Object.entries(env)) if (value === undefined) delete env[key];
  // A run the test no longer waits for (it timed out) is interrupted when the test ends, as Ctrl-C would.
  const ended = new AbortController();
  whenTestEnds(() => ended.abort());
  const signal = options.signal ? AbortSignal.any([options.signal, ended.signal]) : ended.signal;
  const code = await main(
    argv,
    { stdout: stdout.stream, stderr: stderr.stream, stdin, env },
    { signal, checkWorker: options.checkWorker, splitFrom: options.splitFrom },
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

/** A stream that keeps what is written to it, a terminal of 120 columns when `tty`. */
export function capture(tty?: boolean) {
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

export interface UseTestEnvOptions extends SandboxOptions {
  /** Clear the sandbox's faults after each test, so one test's faults are never the next one's. */
  clearFaults?: boolean;
  /**
   * A fresh sandbox and config folder for each test, not one for the file: for tests whose state (the sandbox's
   * attempts and requests, a ledger) must not leak into the next test.
   */
  perTest?: boolean;
}

/**
 * A TestEnv for the whole file (or the describe it is called in): started before its first test, closed after its
 * last; with `perTest`, started afresh before each test and closed after it. The handle is filled in when it
 * starts (use it inside tests and hooks, not at the top level).
 */
export function useTestEnv(options: UseTestEnvOptions = {}): TestEnv {
  const { clearFaults, perTest, ...sandboxOptions } = options;
  const handle = {} as TestEnv;
  (perTest ? beforeEach : beforeAll)(async () => {
    Object.assign(handle, await startTestEnv(sandboxOptions));
  });
  if (clearFaults) afterEach(() => handle.sandbox.faults.clear());
  (perTest ? afterEach : afterAll)(() => handle.close());
  return handle;
}

/** A temp folder: paths in it, and fresh names for files or folders not made yet. */
export interface TempDir {
  dir: string;
  /** The path of `name` (a path of names) in the folder. */
  file(...names: string[]): string;
  /** A path in the folder no earlier call gave (`${name}-0`, `${name}-1`, …), not made: a fresh config folder. */
  fresh(name?: string): string;
}

/** A temp folder made now, removed by `cleanup()`. */
export function tempDir(prefix = "assess-test-"): TempDir & { cleanup(): void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  let made = 0;
  return {
    dir,
    file: (...names) => join(dir, ...names),
    fresh: (name = "config") => join(dir, `${name}-${made++}`),
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/**
 * A temp folder for the whole file (or the describe it is called in), made before its first test and removed after
 * its last; with `perTest`, one for each test. The handle is filled in when it is made (as useTestEnv's).
 */
export function useTempDir(prefix?: string, options: { perTest?: boolean } = {}): TempDir {
  const handle = {} as TempDir & { cleanup(): void };
  (options.perTest ? beforeEach : beforeAll)(() => {
    Object.assign(handle, tempDir(prefix));
  });
  (options.perTest ? afterEach : afterAll)(() => handle.cleanup());
  return handle;
}

/**
 * A file-wide TestEnv (faults cleared after each test) and `scenario()`: a working folder of its own for one
 * run's files, with a config folder (ledgers) inside it. Everything is removed after the file's last test.
 */
export function useScenarios(): TestEnv & { scenario(): { cwd: string; env: Record<string, string> } } {
  const t = useTestEnv({ clearFaults: true });
  const tmp = useTempDir("assess-scenario-");
  return Object.assign(t, {
    scenario() {
      const cwd = tmp.fresh("scenario");
      mkdirSync(cwd);
      return { cwd, env: { ...t.env, ASSESS_CONFIG_DIR: join(cwd, ".config") } };
    },
  });
}

/** The sandbox of the tests: both APIs behind path prefixes, on an ephemeral loopback port. */
export function startTestSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  return startSandbox({ assessPrefix: "/api", skillsPrefix: "/skills", ...options });
}

async function startTestEnv(options: SandboxOptions = {}): Promise<TestEnv> {
  const sandbox = await startTestSandbox(options);
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

function whenTestEnds(stop: () => void): void {
  // Concurrent tests share one "current test", whichever started last: a hook registered from one of them
  // could stop another test's child. Theirs, and what starts outside a test (a beforeAll), stop with the file.
  if (TestRunner.getCurrentTest()?.concurrent) untilFileEnds.add(stop);
  else
    try {
      onTestFinished(stop);
    } catch {
      untilFileEnds.add(stop);
    }
}

/**
 * Kills `child` (SIGKILL; with `group`, its whole process group: it must have been spawned `detached`) when
 * the test that started it ends, or the file if no test did. Every child process a test starts goes through
 * here; startBin does it for the built CLI.
 */
export function stopWhenTestEnds<C extends ChildProcess>(child: C, options: { group?: boolean } = {}): C {
  const stop = () => {
    untilFileEnds.delete(stop);
    try {
      if (options.group && child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
      else if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    } catch {
      // already gone
    }
  };
  whenTestEnds(stop);
  return child;
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Newline-delimited JSON (a stream of --json output, a log): one value a line, empty lines skipped. */
export function ndjson<T = Record<string, unknown>>(text: string): T[] {
  return text
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as T);
}

/** The repository's root, and the built CLI in it (`node bin/assess.js`, built by the global setup). */
export const ROOT = join(import.meta.dirname, "..", "..");
export const BIN = join(ROOT, "bin", "assess.js");
/** dist/check-worker.cjs beside it, as bin/assess.js finds it: what makes a large file's check a split one. */
export const checkWorker = pathToFileURL(join(ROOT, "dist", "check-worker.cjs"));

export interface BinOptions {
  env?: Record<string, string | undefined>;
  /** What the child reads on stdin (a pipe, closed after it): nothing by default; a stream is piped in. */
  stdin?: string | Buffer | Readable;
  cwd?: string;
  /**
   * SIGKILL after this long: for a test of a command that must not hang (a FIFO for a file, say), so that a
   * hang shows as the signal in the result. Without it the child runs until it ends or the test does.
   */
  timeoutMs?: number;
  /** A script the child loads first (`node -r`), to look inside the process. */
  preload?: string;
  /** Record the peak resident set size (a preloaded hook writes it when the process exits). */
  peakMemory?: boolean;
}

export interface BinResult extends RunResult {
  signal: NodeJS.Signals | null;
  /** Peak resident set size, MiB, with `peakMemory` (undefined when the process died before its exit handlers). */
  peakMiB?: number;
  ms: number;
}

/** How long Live.waitFor waits for output by default. */
const WAIT_BOUND_MS = 120_000;

/** A built CLI still running: its output so far, a wait for a pattern, and its end. */
export interface Live {
  child: ChildProcessWithoutNullStreams;
  stdout(): string;
  stderr(): string;
  /**
   * Resolves once `pattern` shows on the stream (checked as the output arrives); fails if the process ends
   * first, or after `boundMs` (2 minutes by default: a bound against a hang, which a loaded machine never
   * comes near, that fails with the output so far where the test's own timeout would not show it).
   */
  waitFor(stream: "stdout" | "stderr", pattern: RegExp, boundMs?: number): Promise<RegExpExecArray>;
  exit: Promise<BinResult>;
}

let rssHook: string | undefined;
/**
 * The preloaded script that writes the process's peak memory (KiB) to $RSS_OUT when it exits, made once per file.
 * It reads VmHWM, which starts afresh at exec: `process.resourceUsage().maxRSS` keeps the high-water mark of the
 * process that forked it (this test runner, hundreds of MiB), getrusage's maxrss surviving execve.
 */
function peakMemoryHook(): string {
  if (rssHook) return rssHook;
  const dir = mkdtempSync(join(tmpdir(), "assess-rss-hook-"));
  process.on("exit", () => rmSync(dir, { recursive: true, force: true }));
  rssHook = join(dir, "rss.cjs");
  writeFileSync(
    rssHook,
    [
      'const fs = require("node:fs");',
      "const peak = () => {",
      "  try {",
      '    return Number(/VmHWM:\\s+(\\d+)/.exec(fs.readFileSync("/proc/self/status", "utf8"))[1]);',
      "  } catch {",
      "    return process.resourceUsage().maxRSS;",
      "  }",
      "};",
      'process.on("exit", () => fs.writeFileSync(process.env.RSS_OUT, String(peak())));',
      "",
    ].join("\n"),
  );
  return rssHook;
}

/**
 * Starts the built CLI in a child process, as a user's shell would: stdin, stdout and stderr on pipes (so not
 * terminals). Not synchronous: a sandbox of the test answers from this process. The one place tests spawn it.
 */
export function startBin(argv: string[], options: BinOptions = {}): Live {
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, NO_COLOR: "1", ...options.env };
  for (const [key, value] of Object.entries(env)) if (value === undefined) delete env[key];
  const preload = options.preload ? ["-r", options.preload] : [];
  let rssOut: string | undefined;
  if (options.peakMemory) {
    const hook = peakMemoryHook();
    rssOut = `${hook}-${process.pid}-${Math.random().toString(36).slice(2)}`;
    env.RSS_OUT = rssOut;
    preload.push("-r", hook);
  }
  const started = Date.now();
  const child = stopWhenTestEnds(
    spawn(process.execPath, [...preload, BIN, ...argv], { cwd: options.cwd, env, stdio: "pipe" }),
  );
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  child.stdout.on("data", (chunk: Buffer) => out.push(chunk));
  child.stderr.on("data", (chunk: Buffer) => err.push(chunk));
  child.stdin.on("error", () => undefined);
  if (options.stdin instanceof Readable) options.stdin.pipe(child.stdin);
  else child.stdin.end(options.stdin ?? "");
  const timer =
    options.timeoutMs === undefined ? undefined : setTimeout(() => child.kill("SIGKILL"), options.timeoutMs);
  const texts = {
    stdout: () => Buffer.concat(out).toString("utf8"),
    stderr: () => Buffer.concat(err).toString("utf8"),
  };
  let closed = false;
  const exit = new Promise<BinResult>((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code, signal) => {
      closed = true;
      clearTimeout(timer);
      let peakMiB: number | undefined;
      if (rssOut && existsSync(rssOut)) {
        peakMiB = Number(readFileSync(rssOut, "utf8")) / 1024;
        rmSync(rssOut);
      }
      const stdout = texts.stdout();
      resolve({
        code: code ?? (signal ? 128 : -1),
        signal,
        stdout,
        stderr: texts.stderr(),
        peakMiB,
        ms: Date.now() - started,
        json<T>() {
          return JSON.parse(stdout) as T;
        },
      });
    });
  });
  return {
    child,
    stdout: texts.stdout,
    stderr: texts.stderr,
    exit,
    waitFor(stream, pattern, boundMs = WAIT_BOUND_MS) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const match = pattern.exec(texts[stream]());
          if (match) settle(() => resolve(match));
          return match;
        };
        const ended = () => {
          if (!check())
            settle(() => reject(new Error(`the command ended before ${pattern} showed:\n${texts.stderr()}`)));
        };
        const bound = setTimeout(
          () =>
            settle(() =>
              reject(new Error(`timed out waiting for ${pattern} on ${stream}:\n${texts.stderr()}`)),
            ),
          boundMs,
        );
        const settle = (then: () => void) => {
          clearTimeout(bound);
          child[stream].off("data", check);
          child.off("close", ended);
          then();
        };
        // After startBin's own listener: the chunk is in the text when this one runs.
        child[stream].on("data", check);
        child.once("close", ended);
        if (closed) ended();
        else check();
      });
    },
  };
}

/**
 * An attempt of test 1001 that its candidate left (status TestLeft): invited with `invite send`, then finished
 * by the sandbox; `run` is the file's own runner (its environment, its sandbox). Returns the invitation's id.
 */
export async function leftAttempt(
  run: (argv: string[]) => Promise<RunResult>,
  email: string,
  name = "Left Lou",
): Promise<number> {
  const invited = await run(["invite", "send", "--test", "1001", "--email", email, "--name", name, "--json"]);
  if (invited.code !== 0) throw new Error(`invite send exited ${invited.code}: ${invited.stderr}`);
  const id = invited.json<{ testInvitationId: number }>().testInvitationId;
  const left = await run(["sandbox", "complete", String(id), "--status", "TestLeft"]);
  if (left.code !== 0) throw new Error(`sandbox complete exited ${left.code}: ${left.stderr}`);
  return id;
}

/** The files of dist/ a run of the built CLI loaded, as require.cache has them when it exits. */
export async function loadedBy(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number | null; stderr: string; loaded: string[] }> {
  const hooks = mkdtempSync(join(tmpdir(), "assess-loaded-"));
  try {
    const hook = join(hooks, "hook.cjs");
    const out = join(hooks, "loaded.json");
    writeFileSync(
      hook,
      `process.on("exit", () => require("node:fs").writeFileSync(${JSON.stringify(out)}, JSON.stringify(Object.keys(require.cache))));\n`,
    );
    const r = await runBin(args, { env, preload: hook });
    const loaded = (JSON.parse(readFileSync(out, "utf8")) as string[]).filter((f) =>
      f.startsWith(join(ROOT, "dist")),
    );
    return { code: r.code, stderr: r.stderr, loaded };
  } finally {
    rmSync(hooks, { recursive: true, force: true });
  }
}

/** Runs the built CLI to its end (see startBin). */
export function runBin(argv: string[], options: BinOptions = {}): Promise<BinResult> {
  return startBin(argv, options).exit;
}
