/**
 * Loads the large third-party bundles of the build (commander, zod, undici: src/build.mjs) through V8's
 * code cache. Node 20 compiles a script from its source on every start: ~0.8 MB here, and most of its functions
 * again when they first run. A cache V8 wrote after an earlier run holds the compiled code of every function
 * that ran, which took ~18 ms off `assess tests list` (bench/README.md); the run that writes the caches takes
 * ~11 ms longer. Node ≥ 22.1 does this itself (`module.enableCompileCache()`); Node 20 only offers it through
 * `vm.Script`, for CommonJS.
 *
 * The caches live in the config folder's `cache/`, one file per bundle, named by the bundle's name (which
 * carries a hash of its content: a new build never reads an old cache) and V8's tag for what its caches depend
 * on (its version, flags and the CPU's features). V8 rejects a cache that does not fit all the same, but not
 * one damaged inside (a flipped byte made Node 20 abort or run wrong code): each file starts with a CRC-32 of
 * the rest (0.15 ms for undici's, plus 0.7 ms to load node:zlib). A missing, damaged or rejected cache is
 * written again when the process exits: every failure only costs the time the cache would have saved.
 */
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { basename, dirname, join } from "node:path";
import { cachedDataVersionTag } from "node:v8";
import { Script } from "node:vm";
import { crc32 } from "node:zlib";
import { configDir } from "../config/store.js";
import { restoreLaunchFlags } from "./v8-flags.js";

const DAY_MS = 24 * 60 * 60 * 1000;

/** V8's tag, which covers its flags, as the bundles load: before --liftoff-only is set (v8-flags.ts). */
const TAG = cachedDataVersionTag();

/** Bundles whose cache is missing or was rejected; written at exit, when all the code that ran is compiled. */
const stale: Array<{ script: Script; file: string; bundle: string }> = [];

/** `require(file)` for a CommonJS bundle of the build, compiled from (and into) the code cache. */
export function loadBundle(file: string): unknown {
  const source = readFileSync(file, "utf8");
  const name = basename(file, ".cjs"); // `<bundle>-<hash of its content>`
  const cacheFile = join(configDir(process.env), "cache", `${name}.${TAG}.v8`);
  // Once the flags changed, a cache read would be rejected and one written at exit never read: none is used.
  const cached = cachedDataVersionTag() === TAG;
  let cachedData: Buffer | undefined;
  try {
    if (cached) cachedData = unsealed(readFileSync(cacheFile));
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
    stale.push({ script, file: cacheFile, bundle: name.slice(0, name.lastIndexOf("-")) });
  }
  const module = { exports: {} };
  script.runInThisContext()(module.exports, createRequire(file), module, file, dirname(file));
  return module.exports;
}

function writeStale(): void {
  // A worker thread (src/bulk/speedups/check-worker.ts) leaves the caches to the main thread.
  if (!process.getBuiltinModule("node:worker_threads").isMainThread) return;
  /*
   * V8 stamps a cache with its tag of the moment, and the next run reads the caches before --liftoff-only is
   * set. Setting back what was set since launch (llhttp, the only WebAssembly, is compiled by now or never)
   * stamps the caches as the next run reads them; should that not restore the tag (another V8), no cache is
   * written: it would never be read.
   */
  restoreLaunchFlags();
  if (cachedDataVersionTag() !== TAG) return;
  for (const { script, file, bundle } of stale) {
    // Written whole under a temporary name, then renamed: a concurrent run reads the old file or the new one.
    const temporary = `${file}.${process.pid}.tmp`;
    try {
      mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
      // Caches of the bundle's other builds, unless written in the last day: another installation may be
      // using them (two that take turns would each find its cache deleted by the other).
      for (const other of readdirSync(dirname(file))) {
        const path = join(dirname(file), other);
        const written = statSync(path, { throwIfNoEntry: false })?.mtimeMs ?? Date.now();
        if (other.startsWith(`${bundle}-`) && path !== file && written < Date.now() - DAY_MS)
          rmSync(path, { force: true });
      }
      writeFileSync(temporary, sealed(script.createCachedData()));
      renameSync(temporary, file);
    } catch {
      // A read-only or full disk: the next run compiles from source, as without a cache.
      try {
        rmSync(temporary, { force: true });
      } catch {
        // left behind
      }
    }
  }
}

/** The cache with its CRC-32 (4 bytes) in front. */
function sealed(data: Buffer): Buffer {
  const crc = Buffer.alloc(4);
  crc.writeUInt32LE(crc32(data));
  return Buffer.concat([crc, data]);
}

/** The cache a file holds, or undefined when it is damaged. */
function unsealed(file: Buffer): Buffer | undefined {
  const data = file.subarray(4);
  return file.length > 4 && file.readUInt32LE(0) === crc32(data) ? data : undefined;
}
