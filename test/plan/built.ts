/**
 * The built CLI (`node bin/assess.js`, built by the global setup) against a sandbox of the file's own, run in a
 * folder of its own: both made before the file's first test and removed after its last (useTestEnv, useTempDir).
 */
import type { SandboxOptions } from "../../src/sandbox/index.js";
import type { RecordedRequest } from "../../src/sandbox/types.js";
import { runBin, type TestEnv, useTempDir, useTestEnv } from "../helpers/cli.js";

export interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

export interface Built {
  sandbox: TestEnv["sandbox"];
  dir: string;
  /** Runs `assess …` as a user would, stdin empty (not a terminal). */
  run(args: string[]): Promise<Ran>;
  /** The requests the sandbox got since the last call (or since it started). */
  sent(): RecordedRequest[];
}

/** A Built for the whole file; its fields are there once it has started (inside tests and hooks). */
export function useBuilt(options: SandboxOptions = {}): Built {
  const t = useTestEnv(options);
  const tmp = useTempDir("assess-plan-");
  let seen = 0;
  return {
    get sandbox() {
      return t.sandbox;
    },
    get dir() {
      return tmp.dir;
    },
    run: (args) => runBin(args, { env: t.env, cwd: tmp.dir }),
    sent() {
      const fresh = t.sandbox.requests.slice(seen);
      seen = t.sandbox.requests.length;
      return fresh;
    },
  };
}

/** Requests that write (anything but GET, and not the attempt listing, which reads by POST). */
export function writes(requests: RecordedRequest[]): RecordedRequest[] {
  return requests.filter((r) => r.method !== "GET" && !r.path.startsWith("/v3/candidates/testattempts"));
}
