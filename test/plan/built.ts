/** The built CLI (`node bin/assess.js`, built by the global setup) against a sandbox of the test's own. */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SANDBOX_KEYS, type Sandbox, type SandboxOptions, startSandbox } from "../../src/sandbox/index.js";
import type { RecordedRequest } from "../../src/sandbox/types.js";
import { ROOT } from "../bulk/helpers.js";

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
  const sandbox = await startSandbox({ assessPrefix: "/api", skillsPrefix: "/skills", ...options });
  const dir = mkdtempSync(join(tmpdir(), "assess-plan-"));
  const env = {
    PATH: process.env.PATH,
    NO_COLOR: "1",
    ASSESS_BASE_URL: sandbox.url,
    ASSESS_SKILLS_BASE_URL: sandbox.skillsUrl,
    ASSESS_API_KEY: SANDBOX_KEYS.acme,
    ASSESS_CONFIG_DIR: join(dir, "config"),
  };
  let seen = 0;
  return {
    sandbox,
    dir,
    run: (args) =>
      new Promise((resolve, reject) => {
        const child = spawn(process.execPath, [join(ROOT, "bin", "assess.js"), ...args], {
          cwd: dir,
          env,
          stdio: ["ignore", "pipe", "pipe"],
        });
        const out: Buffer[] = [];
        const err: Buffer[] = [];
        child.stdout.on("data", (b: Buffer) => out.push(b));
        child.stderr.on("data", (b: Buffer) => err.push(b));
        child.on("error", reject);
        child.on("close", (code) =>
          resolve({
            code: code ?? -1,
            stdout: Buffer.concat(out).toString("utf8"),
            stderr: Buffer.concat(err).toString("utf8"),
          }),
        );
      }),
    sent() {
      const fresh = sandbox.requests.slice(seen);
      seen = sandbox.requests.length;
      return fresh;
    },
    async close() {
      await sandbox.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Requests that write (anything but GET, and not the attempt listing, which reads by POST). */
export function writes(requests: RecordedRequest[]): RecordedRequest[] {
  return requests.filter((r) => r.method !== "GET" && !r.path.startsWith("/v3/candidates/testattempts"));
}
