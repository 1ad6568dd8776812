/**
 * One way to each service: every client comes from the command's connection (src/connection.ts), so `auth login` verifies the key where
 * every other command would send it, the embedded sandbox included (it used to build its own client and ask
 * the real default host), with the one `[debug]` writer.
 */
import { mkdtempSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { runCli, SANDBOX_KEYS, useTempDir, useTestEnv } from "../helpers/cli.js";

const tmp = useTempDir("assess-seams-");

describe("auth login --sandbox", () => {
  it("verifies the key against the embedded sandbox, not the real host, and stores it", async () => {
    const env = {
      ASSESS_CONFIG_DIR: tmp.dir,
      // Nowhere reachable: a login that asked the configured host would fail.
      ASSESS_BASE_URL: "https://assess.invalid",
    };
    const r = await runCli(["--sandbox", "--debug", "auth", "login", "--with-key"], {
      env,
      stdin: SANDBOX_KEYS.globex,
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/\[debug\] → GET http:\/\/127\.0\.0\.1:\d+\/v3\/tests\?pageNo=1&pageSize=1/);
    expect(r.stderr).not.toContain("assess.invalid");
    expect(r.stderr).not.toContain(SANDBOX_KEYS.globex);
    expect(readFileSync(tmp.file("config.json"), "utf8")).toContain(SANDBOX_KEYS.globex);
  });

  it("a key the sandbox does not know is refused (exit 4) and not stored", async () => {
    const other = mkdtempSync(tmp.file("other-"));
    const r = await runCli(["--sandbox", "auth", "login", "--with-key"], {
      env: { ASSESS_CONFIG_DIR: other },
      stdin: "sbx-nobody-000000000",
    });
    expect(r.code).toBe(4);
    expect(r.stderr).not.toContain("sbx-nobody-000000000");
  });
});

describe("the group a command line names", () => {
  const t = useTestEnv();
  it("is found after global options that take a value, read from the root's own declarations", async () => {
    const r = await t.run(["--timeout", "5000", "-o", "json", "--fields", "testId", "tests", "list"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.json<{ testId: number }[]>()[0]).toEqual({ testId: 1001 });
    // `tests` as an option's value is not the group.
    const named = await t.run(["--profile", "tests", "--api-key", "x", "--help"]);
    expect(named.stdout).toContain("Usage: assess [options] [command]");
  });
});
