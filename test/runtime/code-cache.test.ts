/**
 * The built CLI loads commander, zod and undici, and its own chunks, through V8's code cache
 * (src/runtime/code-cache.ts): the first run
 * writes the caches, later runs read them, and a cache that cannot be used changes nothing a user sees (the
 * same output and messages).
 */
import { spawnSync } from "node:child_process";
import {
  cpSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

import { ROOT, runBin } from "../helpers/cli.js";

/** `<bundle or chunk>-<hash of its content>.<V8's tag>.<the installation's id>.v8` */
const CACHE_NAME = /^[a-z0-9-]+-[A-Z0-9]{8}\.\d+\.[0-9a-f]{8}\.v8$/;
const BUNDLE = /^(commander|zod|undici)-/;

describe("the code cache", () => {
  let configDir: string;
  const cacheDir = () => join(configDir, "cache");
  const caches = () => readdirSync(cacheDir()).sort();
  const bundles = () => caches().filter((name) => BUNDLE.test(name));
  const chunks = () => caches().filter((name) => name.startsWith("chunk-"));
  const run = async () => {
    const r = await runBin(["--sandbox", "tests", "list", "--json"], {
      env: { PATH: process.env.PATH, ASSESS_CONFIG_DIR: configDir },
    });
    expect(r.code).toBe(0);
    // The embedded sandbox's notice, and nothing about caches.
    return `${r.stdout}\n${r.stderr}`;
  };

  beforeEach(() => {
    configDir = mkdtempSync(join(tmpdir(), "assess-code-cache-"));
  });
  afterEach(() => rmSync(configDir, { recursive: true, force: true }));

  it("is written by the first run and read, not rewritten, by the next", async () => {
    const first = await run();
    expect(bundles()).toHaveLength(3);
    // The chunks of cli.cjs that `tests list` loads, each in a cache of its own.
    expect(chunks().length).toBeGreaterThan(10);
    // And cli.cjs's, named by its content's hash as its name has none.
    expect(caches().filter((name) => name.startsWith("cli-"))).toHaveLength(1);
    for (const name of caches()) expect(name).toMatch(CACHE_NAME);
    const written = caches().map((name) => statSync(join(cacheDir(), name)).mtimeMs);

    expect(await run()).toBe(first);
    // Rewritten would mean V8 rejected it (for instance, stamped with other V8 flags than the next run has).
    expect(caches().map((name) => statSync(join(cacheDir(), name)).mtimeMs)).toEqual(written);
  });

  it("a bulk run (other V8 flags: src/runtime/v8-flags.ts) has caches of its own, read by the next bulk run", async () => {
    await run();
    const listCaches = caches();
    const bulk = async () => {
      const r = await runBin(["--sandbox", "callbacks", "resend", "9999991", "--json", "--yes"], {
        env: { PATH: process.env.PATH, ASSESS_CONFIG_DIR: configDir },
      });
      expect(r.stderr).not.toMatch(/cachedData|V8|^\s+at /m);
      return r.code;
    };
    const status = await bulk();
    const bulkCaches = caches().filter((name) => !listCaches.includes(name));
    expect(bulkCaches.filter((name) => BUNDLE.test(name))).toHaveLength(3);
    const written = caches().map((name) => statSync(join(cacheDir(), name)).mtimeMs);
    expect(await bulk()).toBe(status);
    await run();
    expect(caches().map((name) => statSync(join(cacheDir(), name)).mtimeMs)).toEqual(written);
  });

  it("a damaged cache is ignored and written again", async () => {
    const first = await run();
    const undici = join(cacheDir(), caches().find((name) => name.startsWith("undici-"))!);
    const chunk = join(cacheDir(), chunks()[0]!);
    // One flipped byte inside: V8 itself would take it (and abort, or run wrong code).
    const damage = (file: string) => {
      const damaged = readFileSync(file);
      damaged[damaged.length >> 1]! ^= 0xff;
      writeFileSync(file, damaged);
      return damaged;
    };
    const damaged = [damage(undici), damage(chunk)];

    expect(await run()).toBe(first);
    expect(readFileSync(undici).equals(damaged[0]!)).toBe(false);
    expect(readFileSync(chunk).equals(damaged[1]!)).toBe(false);
  });

  it("a config folder that cannot be written changes nothing but the time", async () => {
    const unwritable = join(configDir, "a-file");
    writeFileSync(unwritable, "");
    const refused = (dir: string) =>
      runBin(["tests", "list", "--retries", "0"], {
        env: {
          PATH: process.env.PATH,
          ASSESS_CONFIG_DIR: dir,
          ASSESS_API_KEY: "key",
          ASSESS_BASE_URL: "http://127.0.0.1:9",
        },
      });
    const normal = await refused(join(configDir, "normal"));
    expect(normal.code).toBe(1);
    expect(normal.stderr).toContain("connection refused");
    const inside = await refused(join(unwritable, "config"));
    expect([inside.code, inside.stdout, inside.stderr]).toEqual([normal.code, normal.stdout, normal.stderr]);
  });

  it("a new cache replaces the bundle's caches from builds unused for a day, and keeps the others", async () => {
    await run();
    const zod = caches().find((name) => name.startsWith("zod-"))!;
    const version = zod.slice(zod.indexOf("."));
    const old = `zod-OLDBUILD${version}`;
    const recent = `zod-OTHERBUILD${version}`;
    // What a write stopped before its rename left (config/private.ts's NewFile names it so).
    const stopped = `.${zod}.12345-0a1b2c3d.tmp`;
    writeFileSync(join(cacheDir(), old), "");
    writeFileSync(join(cacheDir(), recent), "");
    writeFileSync(join(cacheDir(), stopped), "");
    const twoDaysAgo = new Date(Date.now() - 2 * 24 * 60 * 60 * 1000);
    utimesSync(join(cacheDir(), old), twoDaysAgo, twoDaysAgo);
    utimesSync(join(cacheDir(), stopped), twoDaysAgo, twoDaysAgo);
    rmSync(join(cacheDir(), zod));

    await run();
    expect(caches()).toContain(zod);
    expect(caches()).toContain(recent);
    expect(caches()).not.toContain(old);
    expect(caches()).not.toContain(stopped);
  });

  it("two installations sharing the config folder (a global one, a project's) keep caches of their own", async () => {
    // A second installation: the same build elsewhere, so it makes a key of its own.
    const other = mkdtempSync(join(tmpdir(), "assess-other-install-"));
    try {
      cpSync(join(ROOT, "dist"), other, {
        recursive: true,
        filter: (file) => !file.endsWith("code-cache.key"),
      });
      const runOther = () => {
        const r = spawnSync(
          process.execPath,
          [join(other, "launch.cjs"), "--sandbox", "tests", "list", "--json"],
          {
            env: { PATH: process.env.PATH, ASSESS_CONFIG_DIR: configDir },
            encoding: "utf8",
          },
        );
        expect(r.status, r.stderr).toBe(0);
      };
      await run();
      runOther();
      const written = new Map(caches().map((name) => [name, statSync(join(cacheDir(), name)).mtimeMs]));
      // Each has its caches: the same bundles twice, under the two installations' ids.
      expect(new Set(caches().map((name) => name.split(".")[2])).size).toBe(2);
      await run();
      runOther();
      // Neither found the other's caches sealed with the wrong key, so neither wrote one again.
      expect(new Map(caches().map((name) => [name, statSync(join(cacheDir(), name)).mtimeMs]))).toEqual(
        written,
      );
    } finally {
      rmSync(other, { recursive: true, force: true });
    }
  });
});
