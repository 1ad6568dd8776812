/**
 * What the `attempts watch` and `callbacks` tests share: a sandbox and a config folder for each test, attempts
 * finished on the sandbox as a user would, waits with a bound, and small receivers on loopback.
 */
import { readdirSync } from "node:fs";
import http from "node:http";
import net, { type AddressInfo } from "node:net";
import { join } from "node:path";
import { beforeEach, expect } from "vitest";
import {
  type BinOptions,
  runBin,
  sleep,
  startBin,
  type TestEnv,
  useTempDir,
  useTestEnv,
} from "../helpers/cli.js";

/**
 * A sandbox and a config folder for each test (the sandbox's attempts and the watch's state must not leak into the
 * next), and the CLI pointed at them. It registers the hooks; use what it gives inside tests: `t` and `tmp` are
 * the test's (see useTestEnv, useTempDir), `env` is the sandbox's environment with `tmp.file("config")` (not made
 * yet) for the config folder, refilled before each test; `run` (in-process), `start` and `runBuilt` (the built
 * CLI) take more environment over it.
 */
export function useWatchEnv(prefix = "assess-watch-") {
  const t = useTestEnv({ perTest: true });
  const tmp = useTempDir(prefix, { perTest: true });
  const env: Record<string, string> = {};
  beforeEach(() => {
    for (const key of Object.keys(env)) delete env[key];
    Object.assign(env, t.env, { ASSESS_CONFIG_DIR: tmp.file("config") });
  });
  const watchFolder = () => join(env.ASSESS_CONFIG_DIR!, "watch");
  /** The state of a watch of all tests on the default profile (a run must have made it). */
  const stateFile = () => {
    const [file] = readdirSync(watchFolder()).filter((name) => /^default-[0-9a-f]+\.json$/.test(name));
    return join(watchFolder(), file!);
  };
  const bin = (options: BinOptions = {}) => ({ ...options, env: { ...env, ...options.env } });
  return {
    t,
    tmp,
    env,
    run: (args: string[], extra: Record<string, string> = {}) => t.run(args, { env: { ...env, ...extra } }),
    start: (args: string[], options?: BinOptions) => startBin(args, bin(options)),
    runBuilt: (args: string[], options?: BinOptions) => runBin(args, bin(options)),
    finishedAttempt: (email: string, options?: Parameters<typeof finishedAttempt>[2]) =>
      finishedAttempt(t, email, options),
    /** How many times the watch listed the finished attempts. */
    listingCalls: () => t.sandbox.requests.filter((r) => r.path.endsWith("/testattempts")).length,
    watchFolder,
    stateFile,
    journalFile: () => stateFile().replace(/\.json$/, ".journal.ndjson"),
    deadLetterFile: () => stateFile().replace(/\.json$/, ".dead-letter.ndjson"),
  };
}

/** Polls until `check` passes; fails after a bound against a hang (2 min: a loaded machine never comes near it). */
export async function waitUntil(check: () => boolean, what: string, boundMs = 120_000): Promise<void> {
  const until = Date.now() + boundMs;
  while (!check()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

/** Invites a candidate to a test and makes them finish it, as a user would: `assess sandbox complete`. */
export async function finishedAttempt(
  t: TestEnv,
  email: string,
  {
    test = "1001",
    name = "Watch Ed",
    callbackUrl,
  }: { test?: string; name?: string; callbackUrl?: string } = {},
): Promise<number> {
  const invited = await t.run([
    ...["invite", "send", "--test", test, "--email", email, "--name", name],
    ...(callbackUrl ? ["--callback-url", callbackUrl] : []),
    ...["-o", "tsv", "--fields", "testInvitationId"],
  ]);
  expect(invited.code, invited.stderr).toBe(0);
  const id = invited.stdout.trim().split("\n").at(-1)!;
  const completed = await t.run(["sandbox", "complete", id]);
  expect(completed.code, completed.stderr).toBe(0);
  return Number(id);
}

export function expectNoStack(stderr: string): void {
  expect(stderr).not.toMatch(/^\s+at |Unhandled|TypeError|ReferenceError/m);
}

export interface Received {
  body: Buffer;
  headers: http.IncomingHttpHeaders;
}

export interface Receiver {
  url: string;
  port: number;
  requests: Received[];
  close(): Promise<void>;
}

/**
 * A receiver on loopback: `answer` decides what each request gets (default 204), after its whole body
 * arrived. It may also take over the response (a trickle, a hang) and return nothing.
 */
export async function startReceiver(
  answer: (request: Received, res: http.ServerResponse, index: number) => number | undefined = () => 204,
  port = 0,
): Promise<Receiver> {
  const requests: Received[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const received = { body: Buffer.concat(chunks), headers: req.headers };
      requests.push(received);
      const status = answer(received, res, requests.length - 1);
      if (status !== undefined) res.writeHead(status).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  const bound = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${bound}/hooks/assess`,
    port: bound,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/**
 * A loopback port nothing listens on, and that stays so: it is picked below the kernel's ephemeral range
 * (32768 and up on Linux), so a server of another test file started on port 0 meanwhile is never given it
 * (a "down" receiver that another suite's server took answered 404 instead of refusing).
 */
export async function freePort(): Promise<number> {
  for (;;) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    const free = await new Promise<boolean>((resolve) => {
      const probe = net.createServer();
      probe.once("error", () => resolve(false));
      probe.listen(port, "127.0.0.1", () => probe.close(() => resolve(true)));
    });
    if (free) return port;
  }
}
