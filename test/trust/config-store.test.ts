/**
 * config.json is conf's file, written under the config folder's rule (src/config/store.ts): through main(argv)
 * in-process, with config folders and files planted here, and through the built CLI where the process is the
 * subject: which chunks it loads, conf under SNAP (conf reads the process's environment), a FIFO (an open that
 * blocked would block the test's thread).
 *
 * - conf is loaded by the commands that change a profile and by no other (`--version`, `--help`, reads), in a
 *   chunk of its own without ajv and semver;
 * - what conf writes: one profile per name (dots included), the file's other keys kept, 0600, renamed into
 *   place; with SNAP set conf writes in place, and the file still ends 0600 and no link is written through;
 * - what is refused before conf reads or writes (exit 2, nothing written, nothing outside the folder changed):
 *   a link (dangling too), a hard link, a FIFO, a folder, a file over 1 MiB, a file that is not JSON;
 * - the config folder itself may be a link (dotfiles often are): conf writes in the folder it points to.
 *
 * Every run: its exit code, no stack trace, the canary key in no output.
 */

import { spawnSync } from "node:child_process";
import {
  chmodSync,
  closeSync,
  linkSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { changedFiles, snapshotFiles } from "../../fixtures/hostile/files.js";
import { ROOT } from "../bulk/helpers.js";
import { loadedBy, runCli, SANDBOX_KEYS, tempDir } from "../helpers/cli.js";
import { expectClean, runBuilt } from "./built.js";

const KEY = SANDBOX_KEYS.acme;
const VICTIM = '{"profiles":{"default":{"output":"json"}}}\n';

let tmp: ReturnType<typeof tempDir>;
let n = 0;
beforeAll(() => {
  tmp = tempDir("assess-config-store-");
});
afterAll(() => tmp.cleanup());

/** A config folder of its own (0700), its config.json's path, and a victim file outside it. */
function planted(): { config: string; file: string; victim: string; env: Record<string, string> } {
  const dir = tmp.file(`case-${n++}`);
  mkdirSync(dir);
  const config = join(dir, "config");
  mkdirSync(config, { mode: 0o700 });
  const victim = join(dir, "victim.json");
  writeFileSync(victim, VICTIM, { mode: 0o644 });
  // The key comes from the environment, the service is one that does not exist: only --dry-run reads run.
  return {
    config,
    file: join(config, "config.json"),
    victim,
    env: { ASSESS_CONFIG_DIR: config, ASSESS_API_KEY: KEY },
  };
}

const mode = (path: string) => statSync(path).mode & 0o777;

/** main(argv) in-process with `env`: conf and the checks around it are the same code as in the built CLI. */
const run = (args: string[], env: Record<string, string>) => runCli(args, { env });

describe("conf is loaded on first write only", () => {
  it("--version, --help and reading commands never load conf's chunk; config set does", async () => {
    const dist = join(ROOT, "dist");
    const confChunks = readdirSync(dist)
      .filter((f) => f.endsWith(".cjs"))
      // A method of conf's class: esbuild names conf's module only when something require()s it.
      .filter((f) => readFileSync(join(dist, f), "utf8").includes("_containsReservedKey"));
    // One chunk of its own: not the launcher, the program's root or the CLI's entry.
    expect(confChunks).toHaveLength(1);
    expect(["launch.cjs", "program.cjs", "cli.cjs"]).not.toContain(confChunks[0]);
    const conf = join(dist, confChunks[0]!);
    // Without what assess never asks of conf (src/build.mjs): ajv's schemas, semver's migrations.
    expect(readFileSync(conf, "utf8")).not.toMatch(/node_modules\/(ajv|semver)\//);

    const { file, env } = planted();
    writeFileSync(file, '{"profiles":{"default":{"output":"json"}}}\n', { mode: 0o600 });
    for (const args of [
      ["--version"],
      ["--help"],
      ["tests", "list", "--dry-run"],
      ["config", "get", "output"],
      ["config", "list"],
      ["config", "path"],
    ]) {
      const r = await loadedBy(args, env);
      expect(r.stderr).not.toContain(KEY);
      expect(r.code, args.join(" ")).toBe(0);
      expect(r.loaded, args.join(" ")).not.toContain(conf);
    }
    const set = await loadedBy(["config", "set", "timeout", "5000"], env);
    expect(set.code).toBe(0);
    expect(set.loaded).toContain(conf);
    expect(JSON.parse(readFileSync(file, "utf8"))).toEqual({
      profiles: { default: { output: "json", timeout: "5000" } },
    });
  });
});

describe("what conf writes", () => {
  it("one profile per name, dots included; the file's other keys kept; 0600, a new file renamed into place", async () => {
    const { file, env } = planted();
    writeFileSync(file, '{"note":"mine","profiles":{"default":{"output":"table"}}}\n', { mode: 0o644 });
    const inode = statSync(file).ino;
    // Held open, the first file keeps its inode: a later file cannot be given the same number once it is freed.
    const original = openSync(file, "r");
    onTestFinished(() => closeSync(original));
    for (const args of [
      ["config", "set", "--profile", "eu.prod", "output", "json"],
      ["config", "set", "--profile", "eu.prod", "timeout", "5000"],
      ["config", "unset", "--profile", "eu.prod", "timeout"],
    ]) {
      expectClean(await run(args, env), 0, KEY);
    }
    expect(JSON.parse(readFileSync(file, "utf8"))).toEqual({
      note: "mine",
      profiles: { default: { output: "table" }, "eu.prod": { output: "json" } },
    });
    expect(readFileSync(file, "utf8").endsWith("}\n")).toBe(true);
    expect(mode(file)).toBe(0o600);
    expect(statSync(file).ino).not.toBe(inode);
    const get = await run(["config", "get", "output", "--profile", "eu.prod"], env);
    expectClean(get, 0, KEY);
    expect(get.stdout).toBe("json\n");
    // Nothing left beside it: no temporary file of conf's writer.
    expect(readdirSync(join(file, "..")).filter((f) => f.startsWith("config.json"))).toEqual(["config.json"]);
  });

  it("with SNAP set (conf writes in place): a link is still refused, and a 0644 file ends 0600", async () => {
    const linked = planted();
    const before = snapshotFiles([linked.victim]);
    symlinkSync(linked.victim, linked.file);
    const refused = await runBuilt(["config", "set", "api-key", KEY], {
      ...linked.env,
      SNAP: "/snap/node/1",
    });
    expectClean(refused, 2, KEY);
    expect(refused.stderr).toContain("config.json is a symbolic link");
    expect(changedFiles(before)).toEqual([]);

    const { file, env } = planted();
    writeFileSync(file, '{"profiles":{"default":{"output":"table"}}}\n', { mode: 0o644 });
    chmodSync(file, 0o644);
    const inode = statSync(file).ino;
    const r = await runBuilt(["config", "set", "api-key", KEY], { ...env, SNAP: "/snap/node/1" });
    expectClean(r, 0, KEY);
    // Written in place (the same file), then narrowed.
    expect(statSync(file).ino).toBe(inode);
    expect(mode(file)).toBe(0o600);
    expect(JSON.parse(readFileSync(file, "utf8"))).toEqual({
      profiles: { default: { output: "table", "api-key": KEY } },
    });
  });
});

describe("refused before conf reads or writes", () => {
  it("a link to nowhere: nothing is created where it points", async () => {
    const { file, env } = planted();
    const nowhere = join(file, "..", "..", "nowhere.json");
    symlinkSync(nowhere, file);
    const r = await run(["config", "set", "output", "json"], env);
    expectClean(r, 2, KEY);
    expect(r.stderr).toContain("config.json is a symbolic link");
    expect(() => lstatSync(nowhere)).toThrow();
    expect(lstatSync(file).isSymbolicLink()).toBe(true);
  });

  it("a hard link to a file outside the folder: conf could write it in place; refused, that file unchanged", async () => {
    const { file, victim, env } = planted();
    linkSync(victim, file);
    const before = snapshotFiles([victim]);
    for (const snap of [false, true]) {
      const r = snap
        ? await runBuilt(["config", "set", "api-key", KEY], { ...env, SNAP: "/snap/node/1" })
        : await run(["config", "set", "api-key", KEY], env);
      expectClean(r, 2, KEY);
      expect(r.stderr).toContain("has 1 other name(s) (hard links)");
    }
    expect(changedFiles(before)).toEqual([]);
  });

  it("a FIFO, a folder, a file over 1 MiB, a file that is not JSON: exit 2 for reads and writes, file unchanged", async () => {
    const cases: Array<{ plant: (file: string) => void; says: string; reads: 0 | 2 }> = [
      {
        plant: (file) => expect(spawnSync("mkfifo", ["-m", "600", file]).status).toBe(0),
        says: "is not a regular file",
        reads: 2,
      },
      // A folder in its place is no profile to read (as before), and nothing to write into.
      { plant: (file) => mkdirSync(file, { mode: 0o700 }), says: "is not a regular file", reads: 0 },
      {
        plant: (file) => writeFileSync(file, `{"pad":"${"x".repeat(2 * 1024 * 1024)}"}`, { mode: 0o600 }),
        says: "bytes; a config file is a few hundred",
        reads: 2,
      },
      {
        plant: (file) => writeFileSync(file, '{"profiles":', { mode: 0o600 }),
        says: "is not valid JSON",
        reads: 2,
      },
    ];
    for (const { plant, says, reads } of cases) {
      const { file, victim, env } = planted();
      plant(file);
      // A FIFO is not read here either (the read would block): it must still be a FIFO afterwards.
      const fifo = lstatSync(file).isFIFO();
      const before = snapshotFiles(fifo ? [victim] : [file, victim]);
      const read = fifo
        ? await runBuilt(["tests", "list", "--dry-run"], env, { timeoutMs: 60_000 })
        : await run(["tests", "list", "--dry-run"], env);
      expectClean(read, reads, KEY);
      if (reads === 2) expect(read.stderr).toContain(says);
      const write = fifo
        ? await runBuilt(["config", "set", "output", "json"], env, { timeoutMs: 60_000 })
        : await run(["config", "set", "output", "json"], env);
      expectClean(write, 2, KEY);
      expect(write.stderr).toContain(says);
      expect(write.stderr).toContain("nothing was");
      expect(changedFiles(before)).toEqual([]);
      if (fifo) expect(lstatSync(file).isFIFO()).toBe(true);
    }
  });
});

describe("the config folder as a link", () => {
  it("is allowed: conf writes config.json in the folder it points to, 0600, and the link stays a link", async () => {
    const { config } = planted();
    const link = join(config, "..", "dotfiles-link");
    symlinkSync(config, link);
    const r = await run(["config", "set", "output", "json"], {
      ASSESS_CONFIG_DIR: link,
      ASSESS_API_KEY: KEY,
    });
    expectClean(r, 0, KEY);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    const file = join(config, "config.json");
    expect(lstatSync(file).isFile()).toBe(true);
    expect(mode(file)).toBe(0o600);
    expect(JSON.parse(readFileSync(file, "utf8"))).toEqual({ profiles: { default: { output: "json" } } });
  });
});
