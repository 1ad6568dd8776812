/**
 * The config folder as a trust boundary and what assess shows of its secrets (the code cache, the SDK's key,
 * links and modes, --dry-run, base URLs' passwords and paths), through the built CLI (the code cache, the built
 * SDK) or in-process (`main`, the rest) against the sandbox or a small server on loopback, with config folders
 * planted here:
 *
 * - a code cache forged as the probe did (a payload of the bundle's length, V8 data it accepts) is not
 *   run; a cache folder others can write is neither read nor written;
 * - the SDK client shows no key to JSON.stringify, util.inspect or %o;
 * - config.json, the watch state and callbacks listen's log as links; 0777 folders;
 * - --dry-run sends no read; a command that plans with reads sends no write;
 * - a base URL's password is shown nowhere; `api GET /../../x` is refused.
 *
 * Every run: its exit code, no stack trace, the canary key in no output; for files, nothing outside the config
 * folder changed (the planted targets are compared byte for byte).
 */
import { spawnSync } from "node:child_process";
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { changedFiles, snapshotFiles } from "../../fixtures/hostile/files.js";
import { type HostileServer, startHostileServer } from "../../fixtures/hostile/servers.js";
import { ROOT } from "../bulk/helpers.js";
import { runCli, SANDBOX_KEYS, useTempDir, useTestEnv } from "../helpers/cli.js";
import { expectClean, runBuilt } from "./built.js";

const KEY = SANDBOX_KEYS.acme;
const VICTIM = "someone else's file: must never change\n";

const t = useTestEnv();
const tmp = useTempDir("assess-hostile-config-");
/** main() in-process, for what is not about the built CLI's own files (its code cache, the SDK bundle). */
const inProcess = (
  args: string[],
  env: Record<string, string | undefined>,
  options: { stdin?: string } = {},
) => runCli(args, { ...options, env });

/** A config folder of its own (0700) and a victim file outside it. */
function planted(): { config: string; victim: string; env: Record<string, string> } {
  const dir = tmp.fresh("case");
  mkdirSync(dir);
  const config = join(dir, "config");
  mkdirSync(config, { mode: 0o700 });
  const victim = join(dir, "victim.txt");
  writeFileSync(victim, VICTIM, { mode: 0o644 });
  return { config, victim, env: { ...t.env, ASSESS_CONFIG_DIR: config } };
}

describe("the code cache", () => {
  it("a cache forged as the probe did (same-length source with a payload, data V8 accepts) is not run", async () => {
    const { config, victim, env } = planted();
    const before = snapshotFiles([victim]);
    const first = await runBuilt(["tests", "list", "-o", "json"], env);
    expectClean(first, 0, KEY);
    const caches = readdirSync(join(config, "cache")).filter((f) => f.startsWith("commander-"));
    expect(caches).toHaveLength(1);
    const cacheFile = join(config, "cache", caches[0]!);
    const bundle = join(ROOT, "dist", `${caches[0]!.split(".")[0]}.cjs`);
    const pwned = join(config, "..", "pwned.txt");
    // In a fresh Node (the flags the CLI reads its caches with): the payload compiled over the bundle's length,
    // its cached data checked against the real source as the CLI would (V8 accepts it), sealed the old way too.
    const forge = spawnSync(
      process.execPath,
      [
        "-e",
        `const fs = require("node:fs"), vm = require("node:vm"), zlib = require("node:zlib");
const [bundle, out, pwned] = process.argv.slice(1);
const real = "(function (exports, require, module, __filename, __dirname) {" + fs.readFileSync(bundle, "utf8") + "\\n})";
const head = "(function (exports, require, module, __filename, __dirname) {require('node:fs').writeFileSync(" + JSON.stringify(pwned) + ", process.env.ASSESS_API_KEY);/*";
const payload = head + " ".repeat(real.length - head.length - 5) + "*/\\n})";
const script = new vm.Script(payload, { filename: bundle });
const data = script.createCachedData();
const check = new vm.Script(real, { filename: bundle, cachedData: data });
if (check.cachedDataRejected) { console.error("V8 rejected the forged cache"); process.exit(3); }
for (const mac of [32, 4]) {
  const seal = Buffer.alloc(mac);
  seal.writeUInt32LE(zlib.crc32(data));
  fs.writeFileSync(out + "." + mac, Buffer.concat([seal, data]));
}`,
        bundle,
        cacheFile,
        pwned,
      ],
      { encoding: "utf8" },
    );
    expect(forge.status, forge.stderr).toBe(0);
    for (const forged of [`${cacheFile}.32`, `${cacheFile}.4`]) {
      writeFileSync(cacheFile, readFileSync(forged));
      const r = await runBuilt(["tests", "list", "-o", "json"], env);
      expectClean(r, 0, KEY);
      expect(r.stdout).toBe(first.stdout);
      expect(existsSync(pwned)).toBe(false);
      // Rewritten with this installation's seal.
      expect(readFileSync(cacheFile).equals(readFileSync(forged))).toBe(false);
    }
    // The secret is beside the bundles, this user's alone.
    expect(statSync(join(ROOT, "dist", "code-cache.key")).mode & 0o777).toBe(0o600);
    expect(changedFiles(before)).toEqual([]);
  });

  it("a cache folder others can write to, or a link in its place, is neither read nor written", async () => {
    const { config, env } = planted();
    mkdirSync(join(config, "cache"), { mode: 0o700 });
    chmodSync(join(config, "cache"), 0o777);
    const r = await runBuilt(["tests", "list", "-o", "json"], env);
    expectClean(r, 0, KEY);
    expect(readdirSync(join(config, "cache"))).toEqual([]);

    const linked = planted();
    const elsewhere = join(linked.config, "..", "elsewhere");
    mkdirSync(elsewhere, { mode: 0o700 });
    symlinkSync(elsewhere, join(linked.config, "cache"));
    const l = await runBuilt(["tests", "list", "-o", "json"], linked.env);
    expectClean(l, 0, KEY);
    expect(readdirSync(elsewhere)).toEqual([]);
  });
});

describe("the SDK client", () => {
  it("shows its options with the key redacted to JSON.stringify, util.inspect and %o", () => {
    const r = spawnSync(
      process.execPath,
      [
        "--input-type=module",
        "-e",
        `import { createClient } from ${JSON.stringify(join(ROOT, "dist", "sdk.mjs"))};
import util from "node:util";
const client = createClient({ apiKey: process.env.CANARY, baseUrl: "https://user:secretpw@api.example.com" });
console.log([JSON.stringify(client), util.inspect(client, { depth: 3 }), util.format("%o", client),
  util.inspect(client, { showHidden: true, depth: 9 }), JSON.stringify({ ...client.api.transport.options })].join("\\n"));`,
      ],
      { encoding: "utf8", env: { PATH: process.env.PATH, CANARY: KEY, ASSESS_CONFIG_DIR: tmp.file("sdk") } },
    );
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).not.toContain(KEY);
    expect(r.stdout).not.toContain("secretpw");
    expect(r.stdout).toContain(`****${KEY.slice(-4)}`);
  });
});

describe("links and modes in the config folder", () => {
  it("config.json as a link: config set refuses (exit 2), the target is not written or chmodded", async () => {
    const { config, victim, env } = planted();
    // Someone else's config, readable as one: the run gets as far as writing.
    const theirs = '{"profiles":{"default":{"output":"json"}}}\n';
    writeFileSync(victim, theirs);
    const before = snapshotFiles([victim]);
    symlinkSync(victim, join(config, "config.json"));
    const r = await inProcess(["config", "set", "api-key", KEY], env);
    expectClean(r, 2, KEY);
    expect(r.stderr).toContain("config.json is a symbolic link");
    // The key on stdin, verified against the sandbox, then stored: not through the link.
    const login = await inProcess(
      ["auth", "login", "--with-key"],
      { ...env, ASSESS_API_KEY: undefined },
      { stdin: KEY },
    );
    expectClean(login, 2, KEY);
    expect(login.stderr).toContain("config.json is a symbolic link");
    expect(readFileSync(victim, "utf8")).toBe(theirs);
    expect(statSync(victim).mode & 0o777).toBe(0o644);
    expect(changedFiles(before)).toEqual([]);
  });

  it("a config folder others can write to is refused with the chmod 700 to run; then config set writes 0600", async () => {
    const { config, env } = planted();
    chmodSync(config, 0o777);
    const r = await inProcess(["config", "set", "api-key", KEY], env);
    expectClean(r, 2, KEY);
    expect(r.stderr).toContain("can be written by other users (mode 0777)");
    expect(r.stderr).toContain(`chmod 700 ${config}`);
    chmodSync(config, 0o700);
    const ok = await inProcess(["config", "set", "api-key", KEY], env);
    expectClean(ok, 0, KEY);
    expect(statSync(join(config, "config.json")).mode & 0o777).toBe(0o600);
  });

  it("the watch state as a link is replaced, its target left alone; a 0777 watch/ folder is refused", async () => {
    const { config, victim, env } = planted();
    const first = await inProcess(["attempts", "watch", "--once", "--since", "1d"], env);
    expectClean(first, 0, KEY);
    const [state] = readdirSync(join(config, "watch")).filter((f) => f.endsWith(".json"));
    const path = join(config, "watch", state!);
    // Planted: the state is a link to a file outside the folder that holds a state (so it is read, then saved).
    writeFileSync(victim, readFileSync(path));
    chmodSync(victim, 0o644);
    const before = snapshotFiles([victim]);
    rmSync(path);
    symlinkSync(victim, path);
    const again = await inProcess(["attempts", "watch", "--once"], env);
    expectClean(again, 0, KEY);
    expect(lstatSync(path).isSymbolicLink()).toBe(false);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(changedFiles(before)).toEqual([]);

    chmodSync(join(config, "watch"), 0o777);
    const open = await inProcess(["attempts", "watch", "--once"], env);
    expectClean(open, 2, KEY);
    expect(open.stderr).toContain("can be written by other users (mode 0777)");
  });

  it("callbacks listen --log never appends through a link", async () => {
    const { config, victim, env } = planted();
    const before = snapshotFiles([victim]);
    const log = join(config, "..", "callbacks.ndjson");
    symlinkSync(victim, log);
    const r = await inProcess(["callbacks", "listen", "--port", "0", "--log", log], env);
    expectClean(r, 2, KEY);
    expect(r.stderr).toContain("is a symbolic link; assess does not append through links");
    expect(lstatSync(log).isSymbolicLink()).toBe(true);
    expect(changedFiles(before)).toEqual([]);
  });
});

describe("--dry-run", () => {
  let server: HostileServer;
  beforeAll(async () => {
    server = await startHostileServer(({ res }) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end("{}");
    });
  });
  afterAll(() => server.close());

  it("a read command prints its request and sends none", async () => {
    const env = { ASSESS_BASE_URL: server.url, ASSESS_API_KEY: KEY, ASSESS_CONFIG_DIR: tmp.file("dry") };
    for (const args of [
      ["tests", "list"],
      ["reports", "get", "42"],
      ["attempts", "list", "--from", "7d", "--to", "now"],
    ]) {
      const r = await inProcess([...args, "--dry-run"], env);
      expectClean(r, 0, KEY);
      expect(JSON.parse(r.stdout)).toMatchObject({
        dryRun: true,
        headers: { "x-api-key": `****${KEY.slice(-4)}` },
      });
      expect(r.stderr).toContain("nothing was sent");
    }
    expect(server.requests).toEqual([]);
  });

  it("a command that reads to plan a write says so, makes the read, and sends no write", async () => {
    const mark = t.sandbox.requests.length;
    const r = await inProcess(
      ["links", "update", "3001", "--test", "1001", "--validity-days", "12", "--dry-run"],
      t.env,
    );
    expectClean(r, 0, KEY);
    expect(r.stderr).toContain(
      "[dry-run] Reading test link 3001 to show what would change: those reads are sent; no write is",
    );
    const sent = t.sandbox.requests.slice(mark).map((q) => q.method);
    expect(sent).toEqual(["GET"]);
  });

  it("assess help dry-run documents the rule", async () => {
    const r = await inProcess(["help", "dry-run"], { ASSESS_CONFIG_DIR: tmp.file("help") });
    expectClean(r, 0, KEY);
    expect(r.stdout).toContain("must read to decide what it would write makes those reads");
  });
});

describe("the base URL's password, and paths above the base URL", () => {
  it("user:password@ in the base URL shows in no error, --debug line, config list or openapi", async () => {
    const server = await startHostileServer(({ res }) => {
      res.writeHead(500, { "content-type": "text/plain" });
      res.end("boom");
    });
    try {
      const { config } = planted();
      // The profile's base URL, not the sandbox's from the environment.
      const env = { ASSESS_CONFIG_DIR: config, ASSESS_API_KEY: KEY };
      const base = server.url.replace("http://", "http://bob:hunter2pw@");
      const runs = [
        await inProcess(["--debug", "--retries", "0", "tests", "list"], { ...env, ASSESS_BASE_URL: base }),
        await inProcess(["config", "set", "base-url", base], env),
        await inProcess(["config", "list"], env),
        await inProcess(["config", "get", "base-url"], env),
        await inProcess(["openapi"], env),
        await inProcess(["--base-url", "http://bob:hunter2pw@exa mple.com", "tests", "list"], env),
      ];
      expect(runs.map((r) => r.code)).toEqual([1, 0, 0, 0, 0, 2]);
      for (const r of runs) {
        expectClean(r, r.code, KEY);
        expect(`${r.stdout}${r.stderr}`).not.toContain("hunter2pw");
      }
      expect(runs[2]!.stdout).toContain("bob:****@");
      expect(server.requests.length).toBe(1);
      expect(JSON.stringify(server.requests[0]!.headers)).not.toContain("hunter2pw");
      expect(readFileSync(join(config, "config.json"), "utf8")).toContain("hunter2pw");
    } finally {
      await server.close();
    }
  });

  it("`api GET /../../x` and its encoded forms are refused (exit 2), nothing sent; `/v3/./tests` is normalised", async () => {
    const mark = t.sandbox.requests.length;
    for (const path of ["/../../x", "/v3/../../x", "/v3/%2e%2e/%2E%2E/x", "/v3\\..\\..\\x"]) {
      const r = await inProcess(["api", "GET", path], t.env);
      expectClean(r, 2, KEY);
      expect(r.stderr).toMatch(/climbs above the base URL's path \(\/api\/?\) with \.\./);
    }
    expect(t.sandbox.requests.length).toBe(mark);
    const ok = await inProcess(["api", "GET", "/v3/./tests"], t.env);
    expectClean(ok, 0, KEY);
    expect(t.sandbox.requests.slice(mark).map((q) => q.path)).toEqual(["/v3/tests"]);
  });
});
