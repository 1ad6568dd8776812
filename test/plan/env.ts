/**
 * The CLI (main, in-process) against a sandbox of the file's own, with a folder of its own for the files it reads
 * and writes: both made before the file's first test and removed after its last (useTestEnv, useTempDir).
 */
import type { SandboxOptions } from "../../src/sandbox/index.js";
import type { RecordedRequest } from "../../src/sandbox/types.js";
import { type TestEnv, useTempDir, useTestEnv } from "../helpers/cli.js";

export interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

export interface PlanEnv {
  sandbox: TestEnv["sandbox"];
  dir: string;
  /** Runs `assess …`, stdin empty (not a terminal); paths in `args` are absolute (the folder is `dir`). */
  run(args: string[]): Promise<Ran>;
  /** The requests the sandbox got since the last call (or since it started). */
  sent(): RecordedRequest[];
}

/** A PlanEnv for the whole file; its fields are there once it has started (inside tests and hooks). */
export function usePlanEnv(options: SandboxOptions = {}): PlanEnv {
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
    run: (args) => t.run(args),
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
