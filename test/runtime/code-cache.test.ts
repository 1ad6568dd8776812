/**
 * The built CLI loads commander, zod and undici through V8's code cache (src/runtime/code-cache.ts): the first run
 * writes the caches, later runs read them, and a cache that cannot be used changes nothing a user sees (the
 * same output and messages).
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

const bin = join(import.meta.dirname, "..", "..", "bin", "assess.js");
const CACHE_NAME = /^(commander|zod|undici)-[A-Z0-9]+\.\d+\.v8$/;

describe("the code cache", () => {
  let configDir: string;
  const cacheDir = () => join(configDir, "cache");
  const caches = () => readdirSync(cacheDir()).sort();
  const run = () => {
    const r = spawnSync(process.execPath, [bin, "--sandbox", "tests", "list", "--json"], {
      encoding: "utf8",
      env: { PATH: process.env.PATH, ASSESS_CONFIG_DIR: configDir },
    });
    expect(r.status).toBe(0);
    // The embedded sandbox's notice, and nothing about caches.
    return `${r.stdout}\n${r.stderr}`;
  };

  beforeEach(() => {
    configDir = mkdtempSync(join(tmpdir(), "assess-code-cache-"));
  });
  afterEach(() => rmSync(configDir, { recursive: true, force: true }));

  it("is written by the first run and read, not rewritten, by the next", () => {
    const first = run();
    expect(caches()).toHaveLength(3);
    for (const name of caches()) expect(name).toMatch(CACHE_NAME);
    const written = caches().map((name) => statSync(join(cacheDir(), name)).mtimeMs);

    expect(run()).toBe(first);
    // Rewritten would mean V8 rejected it (for instance, stamped with other V8 flags than the next run has).
    expect(caches().map((name) => statSync(join(cacheDir(), name)).mtimeMs)).toEqual(written);
  });

  it("a bulk run (other V8 flags: src/runtime/v8-flags.ts) has caches of its own, read by the next bulk run", () => {
    run();
    const listCaches = caches();
    const bulk = () => {
      const r = spawnSync(
        process.execPath,
        [bin, "--sandbox", "callbacks", "resend", "9999991", "--json", "--yes"],
        { encoding: "utf8", env: { PATH: process.env.PATH, ASSESS_CONFIG_DIR: configDir } },
      );
      expect(r.stderr).not.toMatch(/cachedData|V8|^\s+at /m);
      return r.status;
    };
    const status = bulk();
    const bulkCaches = caches().filter((name) => !listCaches.includes(name));
    expect(bulkCaches).toHaveLength(3);
    const written = caches().map((name) => statSync(join(cacheDir(), name)).mtimeMs);
    expect(bulk()).toBe(status);
    run();
    expect(caches().map((name) => statSync(join(cacheDir(), name)).mtimeMs)).toEqual(written);
  });

  it("a damaged cache is ignored and written again", () => {
    const first = run();
    const undici = join(cacheDir(), caches().find((name) => name.startsWith("undici-"))!);
    // One flipped byte inside: V8 itself would take it (and abort, or run wrong code).
    const damaged = readFileSync(undici);
    damaged[damaged.length >> 1]! ^= 0xff;
    writeFileSync(undici, damaged);

    expect(run()).toBe(first);
    expect(readFileSync(undici).equals(damaged)).toBe(false);
  });

  it("a config folder that cannot be written changes nothing but the time", () => {
    const unwritable = join(configDir, "a-file");
    writeFileSync(unwritable, "");
    const refused = (dir: string) =>
      spawnSync(process.execPath, [bin, "tests", "list", "--retries", "0"], {
        encoding: "utf8",
        env: {
          PATH: process.env.PATH,
          ASSESS_CONFIG_DIR: dir,
          ASSESS_API_KEY: "key",
          ASSESS_BASE_URL: "http://127.0.0.1:9",
        },
      });
    const normal = refused(join(configDir, "normal"));
    expect(normal.status).toBe(1);
    expect(normal.stderr).toContain("connection refused");
    const inside = refused(join(unwritable, "config"));
    expect([inside.status, inside.stdout, inside.stderr]).toEqual([
      normal.status,
      normal.stdout,
      normal.stderr,
    ]);
  });

  it("a new cache replaces the bundle's caches from builds unused for a day, and keeps the others", () => {
    run();
    const zod = caches().find((name) => name.startsWith("zod-"))!;
    const version = zod.slice(zod.indexOf("."));
    const old = `zod-OLDBUILD${version}`;
    const recent = `zod-OTHERBUILD${version}`;
    writeFileSync(join(cacheDir(), old), "");
    writeFileSync(join(cacheDir(), recent), "");
    const twoDaysAgo = new Date(Date.now() - 2 * 24 * 60 * 60 * 1000);
    utimesSync(join(cacheDir(), old), twoDaysAgo, twoDaysAgo);
    rmSync(join(cacheDir(), zod));

    run();
    expect(caches()).toContain(zod);
    expect(caches()).toContain(recent);
    expect(caches()).not.toContain(old);
  });
});
