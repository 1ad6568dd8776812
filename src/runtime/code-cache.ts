/**
 * Loads the build's large bundles through V8's code cache (~18 ms of `tests list`, bench/README.md), kept in
 * the config folder's `cache/` by bundle (its name hashes its content) and V8's tag. V8 would run a forged
 * cache, so each starts with an HMAC-SHA256 keyed by a secret beside the bundles (`code-cache.key`): no key,
 * no cache. Any failure only costs the time the cache would have saved.
 */
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { lstatSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
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
const stale: Array<{ script: Script; file: string; bundle: string; dist: string }> = [];

/** `require(file)` for a CommonJS bundle of the build, compiled from (and into) the code cache. */
export function loadBundle(file: string): unknown {
  const source = readFileSync(file, "utf8");
  const name = basename(file, ".cjs"); // `<bundle>-<hash of its content>`
  const dist = dirname(file);
  const root = configDir(process.env);
  const cacheFile = join(root, "cache", `${name}.${TAG}.v8`);
  let cached = false;
  let cachedData: Buffer | undefined;
  try {
    // Once the flags changed, a cache read would be rejected and one written never read.
    cached =
      cachedDataVersionTag() === TAG &&
      privateDirProblem(root, true) === undefined &&
      privateDirProblem(dirname(cacheFile)) === undefined;
    const key = cached ? installKey(dist) : undefined;
    if (key) cachedData = unsealed(readFileSync(cacheFile), key);
  } catch {
    // none yet
  }
  // Node's own CommonJS wrapper, on the source's first line so that stack traces keep their line numbers.
  const script = new Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, {
    filename: file,
    cachedData,
  });
  if (cached && (cachedData === undefined || script.cachedDataRejected)) {
    if (stale.length === 0) process.once("exit", writeStale);
    stale.push({ script, file: cacheFile, bundle: name.slice(0, name.lastIndexOf("-")), dist });
  }
  const module = { exports: {} };
  script.runInThisContext()(module.exports, createRequire(file), module, file, dist);
  return module.exports;
}

function writeStale(): void {
  // A worker thread (src/bulk/rows/check-worker.ts) leaves the caches to the main thread.
  if (!process.getBuiltinModule("node:worker_threads").isMainThread) return;
  // The caches are stamped with the tag the next run reads them under, the flags of launch (v8-flags.ts).
  restoreLaunchFlags();
  if (cachedDataVersionTag() !== TAG) return;
  for (const { script, file, bundle, dist } of stale) {
    try {
      const key = installKey(dist) ?? newInstallKey(dist);
      if (key === undefined) return;
      ensurePrivateDir(configDir(process.env), dirname(file), "V8's code caches");
      // Caches of the bundle's other builds and what a stopped write left (`.<cache>.<pid>-<random>.tmp`),
      // unless written in the last day (another installation's).
      for (const other of readdirSync(dirname(file))) {
        const path = join(dirname(file), other);
        const written = statSync(path, { throwIfNoEntry: false })?.mtimeMs ?? Date.now();
        if (
          other.replace(/^\./, "").startsWith(`${bundle}-`) &&
          path !== file &&
          written < Date.now() - DAY_MS
        )
          rmSync(path, { force: true });
      }
      // Written whole under a new name, then renamed: a concurrent run reads the old file or the new one.
      writePrivateFile(file, sealed(script.createCachedData(), key));
    } catch {
      // A read-only or full disk, a folder refused: the next run compiles from source, as without a cache.
    }
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

const MAC_BYTES = 32;

function sealed(data: Buffer, key: Buffer): Buffer {
  return Buffer.concat([createHmac("sha256", key).update(data).digest(), data]);
}

/** The cache a file holds, or undefined when it was not sealed with this installation's key. */
function unsealed(file: Buffer, key: Buffer): Buffer | undefined {
  if (file.length <= MAC_BYTES) return undefined;
  const data = file.subarray(MAC_BYTES);
  const mac = createHmac("sha256", key).update(data).digest();
  return timingSafeEqual(mac, file.subarray(0, MAC_BYTES)) ? data : undefined;
}
