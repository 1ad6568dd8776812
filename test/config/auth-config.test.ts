import { chmodSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { SANDBOX_KEYS, useTestEnv } from "../helpers/cli.js";

const t = useTestEnv();

/** The environment without ASSESS_API_KEY: what a user who logged in has. */
const noKeyEnv = { ASSESS_API_KEY: undefined };
const mode = (file: string) => statSync(file).mode & 0o777;

describe("auth", () => {
  it("no key configured → exit 4 with a hint to run `assess auth login`", async () => {
    const r = await t.run(["tests", "list"], { env: noKeyEnv });
    expect(r.code).toBe(4);
    expect(r.stderr).toContain("No API key configured");
    expect(r.stderr).toContain("assess auth login");
  });

  it("login --with-key verifies the key, stores it 0600, and later commands use it", async () => {
    const r = await t.run(["auth", "login", "--with-key"], {
      env: noKeyEnv,
      stdin: `${SANDBOX_KEYS.acme}\n`,
    });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain("verified and stored");
    expect(r.stderr).not.toContain(SANDBOX_KEYS.acme);
    const file = join(t.configDir, "config.json");
    expect(mode(file)).toBe(0o600);
    expect(JSON.parse(readFileSync(file, "utf8"))).toEqual({
      profiles: { default: { "api-key": SANDBOX_KEYS.acme } },
    });
    const list = await t.run(["tests", "list", "--json"], { env: noKeyEnv });
    expect(list.code).toBe(0);
  });

  it("login refuses a key the service rejects, and stores nothing", async () => {
    const r = await t.run(["auth", "login", "--with-key", "--profile", "bad"], {
      env: noKeyEnv,
      stdin: "sbx-wrong-key-000000",
    });
    expect(r.code).toBe(4);
    const stored = JSON.parse(readFileSync(join(t.configDir, "config.json"), "utf8"));
    expect(stored.profiles.bad).toBeUndefined();
  });

  it("login --with-key with nothing piped in says what to pipe and stores nothing (exit 2)", async () => {
    // `printf '%s' "$KEY" | …` in a CI job where the secret is not set: it said only "The key read from stdin is empty".
    const r = await t.run(["auth", "login", "--with-key", "--profile", "empty"], {
      env: noKeyEnv,
      stdin: "\n",
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("error: The key read from stdin is empty; nothing was stored");
    expect(r.stderr).toContain(
      "hint: Pipe the key in, for example `printf '%s' \"$KEY\" | assess auth login --with-key`",
    );
  });

  it("login refuses (exit 2) while ASSESS_API_KEY is set, and says so", async () => {
    const r = await t.run(["auth", "login", "--with-key"], { stdin: SANDBOX_KEYS.globex });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("ASSESS_API_KEY is set");
  });

  it("status shows the redacted key and its source; logout removes it", async () => {
    await t.run(["auth", "login", "--with-key", "--profile", "ops"], {
      env: noKeyEnv,
      stdin: SANDBOX_KEYS.globex,
    });
    const status = await t.run(["auth", "status", "--profile", "ops", "--json"], { env: noKeyEnv });
    expect(status.code).toBe(0);
    expect(status.json()).toMatchObject({
      profile: "ops",
      key: `****${SANDBOX_KEYS.globex.slice(-4)}`,
      keySource: "profile",
      valid: true,
    });
    expect(status.stdout + status.stderr).not.toContain(SANDBOX_KEYS.globex);
    const out = await t.run(["auth", "logout", "--profile", "ops"], { env: noKeyEnv });
    expect(out.code).toBe(0);
    const after = await t.run(["auth", "status", "--profile", "ops"], { env: noKeyEnv });
    expect(after.code).toBe(4);
  });

  it("a flag beats the environment, which beats the profile", async () => {
    // The profile holds acme's key (first login test); env gives globex's; globex's test is then allowed.
    const viaEnv = await t.run(["tests", "get", "2001", "--json"], {
      env: { ASSESS_API_KEY: SANDBOX_KEYS.globex },
    });
    expect(viaEnv.code).toBe(0);
    const viaFlag = await t.run(["tests", "get", "2001", "--api-key", SANDBOX_KEYS.acme], {
      env: { ASSESS_API_KEY: SANDBOX_KEYS.globex },
    });
    expect(viaFlag.code).toBe(4);
  });
});

describe("config", () => {
  it("set, get, list (key redacted), unset and path", async () => {
    expect((await t.run(["config", "set", "timeout", "5000", "--profile", "cfg"])).code).toBe(0);
    expect(
      (await t.run(["config", "set", "api-key", "sbx-secret-value-1234", "--profile", "cfg"])).code,
    ).toBe(0);
    expect((await t.run(["config", "get", "timeout", "--profile", "cfg"])).stdout).toBe("5000\n");
    // config list shows the values in effect: without ASSESS_API_KEY, the profile's key.
    const list = await t.run(["config", "list", "--profile", "cfg", "--json"], {
      env: { ASSESS_API_KEY: undefined },
    });
    expect(list.json()).toMatchObject({ timeout: "5000", "api-key": "****1234" });
    expect(list.stdout).not.toContain("sbx-secret-value-1234");
    expect((await t.run(["config", "get", "api-key", "--profile", "cfg"])).stdout).toBe("****1234\n");
    expect((await t.run(["config", "unset", "timeout", "--profile", "cfg"])).code).toBe(0);
    expect((await t.run(["config", "get", "timeout", "--profile", "cfg"])).code).toBe(1);
    expect((await t.run(["config", "path"])).stdout.trim()).toBe(join(t.configDir, "config.json"));
  });

  it("refuses unknown keys and bad values", async () => {
    const unknown = await t.run(["config", "set", "colour", "red"]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("Settings are:");
    expect((await t.run(["config", "set", "retries", "-1"])).code).toBe(2);
    expect((await t.run(["config", "set", "base-url", "http://example.com"])).code).toBe(2);
  });

  it("a bad timeout or retries gets one message, naming the key in `config set` and the flag on a command", async () => {
    const cases = [
      ["timeout", "abc", 'must be a whole number of milliseconds from 1 to 3600000, got "abc"'],
      ["timeout", "-5", 'must be a whole number of milliseconds from 1 to 3600000, got "-5"'],
      ["retries", "21", 'must be a whole number from 0 to 20, got "21"'],
    ];
    for (const [key, value, message] of cases) {
      const set = await t.run(["config", "set", key!, value!]);
      expect(set.code).toBe(2);
      expect(set.stderr).toContain(`${key} ${message}`);
      const flag = await t.run(["tests", "list", `--${key}`, value!]);
      expect(flag.code).toBe(2);
      expect(flag.stderr).toContain(`--${key} ${message}`);
    }
    // A value written into the file by hand is named by its key: no flag was given.
    const dir = join(t.configDir, "hand-edited");
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "config.json"), JSON.stringify({ profiles: { default: { timeout: "abc" } } }));
    const edited = await t.run(["tests", "list"], { env: { ASSESS_CONFIG_DIR: dir } });
    expect(edited.code).toBe(2);
    expect(edited.stderr).toContain(
      'timeout must be a whole number of milliseconds from 1 to 3600000, got "abc"',
    );
    expect(edited.stderr).not.toContain("--timeout");
  });

  it("the config file is 0600 after any write, even if it was 0644", async () => {
    const dir = join(t.configDir, "loose");
    mkdirSync(dir, { recursive: true });
    const file = join(dir, "config.json");
    writeFileSync(file, JSON.stringify({ profiles: {} }));
    chmodSync(file, 0o644);
    const r = await t.run(["config", "set", "output", "json"], { env: { ASSESS_CONFIG_DIR: dir } });
    expect(r.code).toBe(0);
    expect(mode(file)).toBe(0o600);
  });

  it("the profile's base URL and output are used when no flag or env overrides them", async () => {
    const dir = join(t.configDir, "profiled");
    await t.run(["config", "set", "base-url", t.sandbox.url], { env: { ASSESS_CONFIG_DIR: dir } });
    await t.run(["config", "set", "output", "json"], { env: { ASSESS_CONFIG_DIR: dir } });
    const r = await t.run(["tests", "list"], { env: { ASSESS_CONFIG_DIR: dir, ASSESS_BASE_URL: undefined } });
    expect(r.code).toBe(0);
    expect(Array.isArray(r.json())).toBe(true);
  });
});
