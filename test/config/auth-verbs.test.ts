/**
 * `auth logout`, and `auth status` up to the call that checks a key, load neither zod nor undici: the built CLI
 * writes a code cache for each of those bundles it loads (src/runtime/code-cache.ts), so the cache folder tells.
 */
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runBin, runCli, SANDBOX_KEYS, useTempDir, useTestEnv } from "../helpers/cli.js";

describe("the bundles an auth verb loads", () => {
  let configDir: string;
  const run = (argv: string[]) =>
    runBin(argv, { env: { PATH: process.env.PATH, ASSESS_CONFIG_DIR: configDir } });
  // The caches of the three bundles (the CLI's own chunks have caches too).
  const loaded = () =>
    readdirSync(join(configDir, "cache"))
      .map((name) => name.split("-")[0])
      .filter((name) => ["commander", "zod", "undici"].includes(name!));

  beforeEach(() => {
    configDir = mkdtempSync(join(tmpdir(), "assess-auth-loads-"));
  });
  afterEach(() => rmSync(configDir, { recursive: true, force: true }));

  it("logout: commander only", async () => {
    const r = await run(["auth", "logout"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('No key stored in profile "default"; nothing to do.');
    expect(loaded()).toEqual(["commander"]);
  });

  it("status without a key: commander only", async () => {
    const r = await run(["auth", "status"]);
    expect(r.code).toBe(4);
    expect(r.stderr).toContain('No API key for profile "default"');
    expect(loaded()).toEqual(["commander"]);
  });

  it("status with the sandbox's key: all three, as it checks the key with one call", async () => {
    const r = await run(["--sandbox", "auth", "status", "--json"]);
    expect(r.code, r.stderr).toBe(0);
    expect(loaded().sort()).toEqual(["commander", "undici", "zod"]);
  });
});

describe("auth status --sandbox", () => {
  const tmp = useTempDir("assess-auth-status-");
  it("an explicit --api-key picks another sandbox account: its key, from the flag, checked with one call", async () => {
    const r = await runCli(
      ["--sandbox", "--debug", "--api-key", SANDBOX_KEYS.globex, "auth", "status", "--json"],
      {
        env: { ASSESS_CONFIG_DIR: tmp.dir },
      },
    );
    expect(r.code, r.stderr).toBe(0);
    const status = r.json<Record<string, unknown>>();
    expect(status).toMatchObject({
      key: `****${SANDBOX_KEYS.globex.slice(-4)}`,
      keySource: "flag",
      valid: true,
    });
    expect(status.skillsBaseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+/);
    expect(r.stderr.match(/\[debug\] → GET /g)).toHaveLength(1);
  });
});

describe("auth status with a refused key", () => {
  const t = useTestEnv();
  it("exit 4, and the hint fits where the key came from: ASSESS_API_KEY (which login refuses) or the profile", async () => {
    const env = await t.run(["auth", "status"], { env: { ASSESS_API_KEY: "sbx-wrong-0000" } });
    expect(env.code).toBe(4);
    expect(env.stderr).toContain(
      "then set ASSESS_API_KEY to a valid key (or unset it and run `assess auth login`)",
    );
    const dir = mkdtempSync(join(tmpdir(), "assess-auth-refused-"));
    try {
      const profileEnv = { ASSESS_CONFIG_DIR: dir, ASSESS_API_KEY: undefined };
      await t.run(["config", "set", "api-key", "sbx-wrong-0000"], { env: profileEnv });
      const stored = await t.run(["auth", "status"], { env: profileEnv });
      expect(stored.code).toBe(4);
      expect(stored.stderr).toContain("then store a valid one with `assess auth login --profile default`");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
