/**
 * Loads the build's large bundles through V8's code cache (~18 ms of `tests list`, bench/README.md), and the
 * CLI's chunks once the launcher asked (cacheChunks: ~10 ms more), kept in the config folder's `cache/` by
 * bundle or chunk (its name hashes its content), V8's tag and the installation's id. V8 would run a forged
 * cache, so each starts with an HMAC (MAC below) keyed by a secret beside the bundles (`code-cache.key`): no
 * key, no cache. Any failure only costs the time the cache would have saved.
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { existsSync, lstatSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { basename, dirname, join } from "node:path";
import { cachedDataVersionTag } from "node:v8";
import { Script } from "node:vm";
import { ensurePrivateDir, privateDirProblem, writePrivateFile } from "../config/private.js";
import { configDir } from "../config/store.js";
import { restoreLaunchFlags } from "./v8-flags.js";

const DAY_MS = 24 * 60 * 60 * 1000;

/** V8's tag (which covers its flags) as the bundles load, before --liftoff-only is set (v8-flags.ts). */
const TAG = cachedDataVersionTag();

/** Bundles whose cache is missing or was rejected; written at exit, when all the code that ran is compiled. */
const stale: Array<{ script: Script; file: string; dist: string }> = [];

/** `require(file)` for a CommonJS bundle of the build, compiled from (and into) the code cache. */
export function loadBundle(file: string): unknown {
  const module = { exports: {} };
  const dist = dirname(file);
  compiled(file)(module.exports, createRequire(file), module, file, dist);
  return module.exports;
}

/** A chunk of the CLI's build: `<name>-<hash of its content>.cjs`, beside the launcher. */
const CHUNK = /-[A-Z0-9]{8}\.cjs$/;

/**
 * From now on, `require` of a chunk of the build in `dist` (cli.cjs's split chunks: ~10 ms of `tests list` to
 * compile from source) goes through the code cache as the bundles do; any other file loads as Node loads it.
 */
export function cacheChunks(dist: string): void {
  const extensions = (process.getBuiltinModule("node:module") as unknown as { _extensions: Extensions })
    ._extensions;
  const prior = extensions[".cjs"] ?? extensions[".js"]!;
  extensions[".cjs"] = (module, file) => {
    if (dirname(file) !== dist || !(CHUNK.test(file) || basename(file) === ENTRY)) return prior(module, file);
    compiled(file)(module.exports, (id: string) => module.require(id), module, file, dist);
  };
}

/** The CLI's entry (~6 ms to compile from source): its name has no hash, its cache is named by its content's. */
const ENTRY = "cli.cjs";
/** The names given to the caches of ENTRY this run: caches in use, whatever its folder holds. */
const hashedHere = new Set<string>();

type Extensions = Record<string, (module: NodeJS.Module, file: string) => void>;

/**
 * Where caches are read and written, with which key, and the installation's name for its caches (`id`: from the
 * key, which it does not reveal); looked up once; undefined: no cache this run. Two installations sharing a
 * config folder (a global one and a project's) have keys of their own: named alike, each would find the other's
 * caches sealed with the wrong key and write them again on every run (~130 ms).
 */
let place: { dir: string; key: Buffer; id: string } | undefined | null = null;

function cachePlace(dist: string): typeof place {
  if (place !== null) return place;
  place = undefined;
  try {
    const root = configDir(process.env);
    const dir = join(root, "cache");
    if (privateDirProblem(root, true) !== undefined || privateDirProblem(dir) !== undefined) return place;
    const key = installKey(dist) ?? newInstallKey(dist);
    if (key) place = { dir, key, id: createHash("sha256").update(key).digest("hex").slice(0, 8) };
  } catch {
    // no cache
  }
  return place;
}

/** The CommonJS wrapper of a bundle's or chunk's source, compiled with its cache when one is sealed with the key. */
function compiled(file: string): (...args: unknown[]) => void {
  const source = readFileSync(file, "utf8");
  let name = basename(file, ".cjs"); // `<bundle>-<hash of its content>`
  if (!CHUNK.test(file)) {
    name = `${name}-${createHash("sha256").update(source).digest("hex").slice(0, 8).toUpperCase()}`;
    hashedHere.add(name);
  }
  const dist = dirname(file);
  // Once the flags changed, a cache read would be rejected and one written never read.
  const at = cachedDataVersionTag() === TAG ? cachePlace(dist) : undefined;
  const cacheFile = at && join(at.dir, `${name}.${TAG}.${at.id}.v8`);
  let cachedData: Buffer | undefined;
  try {
    if (at && cacheFile) cachedData = unsealed(readFileSync(cacheFile), at.key);
  } catch {
    // none yet
  }
  // Node's own CommonJS wrapper, on the source's first line so that stack traces keep their line numbers.
  const script = new Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, {
    filename: file,
    cachedData,
  });
  if (cacheFile && (cachedData === undefined || script.cachedDataRejected)) {
    if (stale.length === 0) process.once("exit", writeStale);
    stale.push({ script, file: cacheFile, dist });
  }
  return script.runInThisContext();
}

function writeStale(): void {
  // A worker thread (src/bulk/rows/check-worker.ts) leaves the caches to the main thread.
  if (!process.getBuiltinModule("node:worker_threads").isMainThread) return;
  // The caches are stamped with the tag the next run reads them under, the flags of launch (v8-flags.ts).
  restoreLaunchFlags();
  if (cachedDataVersionTag() !== TAG) return;
  const { dist } = stale[0]!;
  const at = cachePlace(dist);
  if (!at) return;
  const { dir, key, id } = at;
  try {
    ensurePrivateDir(configDir(process.env), dir, "V8's code caches");
    // Caches of bundles and chunks this build does not have (other builds'), of other installations, and what
    // a stopped write left (`.<cache>.<pid>-<random>.tmp`), unless written in the last day (in use elsewhere).
    for (const other of readdirSync(dir)) {
      const path = join(dir, other);
      const [name, , owner] = other.replace(/^\./, "").split(".");
      const unused = owner !== id || (!hashedHere.has(name!) && !existsSync(join(dist, `${name}.cjs`)));
      const written = statSync(path, { throwIfNoEntry: false })?.mtimeMs ?? Date.now();
      if ((other.endsWith(".tmp") || unused) && written < Date.now() - DAY_MS) rmSync(path, { force: true });
    }
    // Written whole under a new name, then renamed: a concurrent run reads the old file or the new one. Not
    // flushed to disk (~46 files on a first run: ~100 ms of fsync): one a crash cut short fails its seal, and
    // the next run compiles from source and writes it again.
    for (const { script, file } of stale)
      writePrivateFile(file, sealed(script.createCachedData(), key), { durable: false });
  } catch {
    // A read-only or full disk, a folder refused: the next run compiles from source, as without a cache.
  }
}

const KEY_FILE = "code-cache.key";
const KEY_BYTES = 32;

/** The installation's secret: a file of 32 bytes beside the bundles, this user's, 0600, not a link. */
function installKey(dist: string): Buffer | undefined {
  const path = join(dist, KEY_FILE);
  const info = lstatSync(path, { throwIfNoEntry: false });
  if (!info?.isFile() || info.size !== KEY_BYTES) return undefined;
  if (process.platform !== "win32" && ((info.mode & 0o077) !== 0 || info.uid !== process.getuid?.()))
    return undefined;
  const key = readFileSync(path);
  return key.length === KEY_BYTES ? key : undefined;
}

/** Makes the secret (created new: never through a link, never replacing one); undefined when it cannot. */
function newInstallKey(dist: string): Buffer | undefined {
  const key = randomBytes(KEY_BYTES);
  try {
    writeFileSync(join(dist, KEY_FILE), key, { flag: "wx", mode: 0o600 });
    return key;
  } catch {
    // Made by a concurrent run (read it), or an installation this user cannot write to (no cache).
    return installKey(dist);
  }
}

/**
 * HMAC-SHA512: about twice as fast as SHA-256 on a processor without SHA instructions (1.8 against 4.0 ms per
 * MiB here), and `tests list` checks ~1 MiB of caches on every run.
 */
const MAC = "sha512";
const MAC_BYTES = 64;

function sealed(data: Buffer, key: Buffer): Buffer {
  return Buffer.concat([createHmac(MAC, key).update(data).digest(), data]);
}

/** The cache a file holds, or undefined when it was not sealed with this installation's key. */
function unsealed(file: Buffer, key: Buffer): Buffer | undefined {
  if (file.length <= MAC_BYTES) return undefined;
  const data = file.subarray(MAC_BYTES);
  const mac = createHmac(MAC, key).update(data).digest();
  return timingSafeEqual(mac, file.subarray(0, MAC_BYTES)) ? data : undefined;
}
