/** The built CLI (`node bin/assess.js`, built by the global setup) against a sandbox of the test's own, run in a folder of its own. */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Sandbox, SandboxOptions } from "../../src/sandbox/index.js";
import type { RecordedRequest } from "../../src/sandbox/types.js";
import { runBin, startTestEnv } from "../helpers/cli.js";

export interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

export interface Built {
  sandbox: Sandbox;
  dir: string;
  /** Runs `assess …` as a user would, stdin empty (not a terminal). */
  run(args: string[]): Promise<Ran>;
  /** The requests the sandbox got since the last call (or since it started). */
  sent(): RecordedRequest[];
  close(): Promise<void>;
}

export async function startBuilt(options: SandboxOptions = {}): Promise<Built> {
  const t = await startTestEnv(options);
  const dir = mkdtempSync(join(tmpdir(), "assess-plan-"));
  let seen = 0;
  return {
    sandbox: t.sandbox,
    dir,
    run: (args) => runBin(args, { env: t.env, cwd: dir }),
    sent() {
      const fresh = t.sandbox.requests.slice(seen);
      seen = t.sandbox.requests.length;
      return fresh;
    },
    async close() {
      await t.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Requests that write (anything but GET, and not the attempt listing, which reads by POST). */
export function writes(requests: RecordedRequest[]): RecordedRequest[] {
  return requests.filter((r) => r.method !== "GET" && !r.path.startsWith("/v3/candidates/testattempts"));
}
