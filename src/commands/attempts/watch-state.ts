/**
 * What `attempts watch` remembers between runs: the ids it has shown and the time it has polled up to, in
 * one small JSON file per profile, service, account and test filter under the config folder. It is replaced
 * whole (a temporary file renamed over it), so a crash leaves the old state or the new one, never half.
 */
import { createHash } from "node:crypto";
import { closeSync, openSync, readFileSync, rmSync, writeSync } from "node:fs";
import { join } from "node:path";
import { ensurePrivateDir, writePrivateFile } from "../../config/private.js";
import { CliError, UsageError } from "../../errors.js";

const WHAT = "where attempts watch keeps its state";

export interface WatchState {
  version: 1;
  /** Where the attempts come from, and the test filter: what the file's name is a hash of, kept readable. */
  baseUrl: string;
  tests: number[];
  /** Every attempt's finish up to this time has been polled for (UTC ISO 8601). */
  polledUntil: string;
  /** Ids shown, each with the end of the poll that first returned it (for pruning). */
  shown: Record<string, string>;
}

export interface WatchTarget {
  profile: string;
  /** The service, as bulk ledgers name it (the embedded sandbox is one place whatever its port). */
  baseUrl: string;
  /** The key's fingerprint: another account is another watch. */
  key: string;
  tests: number[];
}

/** `<configDir>/watch/<profile>-<hash>.json`. */
export function watchStatePath(configDir: string, target: WatchTarget): string {
  const hash = createHash("sha256")
    .update(
      JSON.stringify([
        target.baseUrl.replace(/\/+$/, ""),
        target.key,
        [...target.tests].sort((a, b) => a - b),
      ]),
    )
    .digest("hex")
    .slice(0, 16);
  return join(configDir, "watch", `${target.profile.replace(/[^\w.-]/g, "_")}-${hash}.json`);
}

/** The state in `path`, or undefined when there is none yet; a file that cannot be read is an error. */
export function loadWatchState(path: string): WatchState | undefined {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    if ((error as { code?: string }).code === "ENOENT") return undefined;
    throw new CliError(`Cannot read the watch state ${path}: ${(error as Error).message}`);
  }
  const broken = () =>
    new CliError(`The watch state ${path} is not one this version wrote`, {
      suggestion: "Delete it to start again from --since (attempts already shown may be shown again).",
    });
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    throw broken();
  }
  if (typeof data !== "object" || data === null) throw broken();
  const state = data as Partial<WatchState>;
  if (
    state.version !== 1 ||
    typeof state.polledUntil !== "string" ||
    Number.isNaN(Date.parse(state.polledUntil)) ||
    typeof state.shown !== "object" ||
    state.shown === null
  ) {
    throw broken();
  }
  return state as WatchState;
}

/** Writes the state whole: a private temporary file beside it, flushed, then renamed over it (mode 0600). */
export function saveWatchState(path: string, state: WatchState): void {
  const folder = join(path, "..");
  ensurePrivateDir(join(folder, ".."), folder, WHAT);
  try {
    writePrivateFile(path, `${JSON.stringify(state)}\n`);
  } catch (error) {
    throw new CliError(`Cannot write the watch state ${path}: ${(error as Error).message}`, {
      suggestion: "Free some space or fix the folder's permissions, or set ASSESS_CONFIG_DIR.",
      cause: error,
    });
  }
}

/**
 * Forgets ids that no later poll can return: one first returned by a poll that ended before `from` finished
 * before it, and polls never again reach back before `from`.
 */
export function pruneShown(state: WatchState, from: Date): void {
  for (const [id, seenAt] of Object.entries(state.shown)) {
    if (Date.parse(seenAt) < from.getTime()) delete state.shown[id];
  }
}

/**
 * Takes the state's lock (`<state>.lock`, holding this process's id) for as long as the watch runs: two
 * watches of one state (an overlapping cron run) would each run --exec and --forward for the same attempt.
 * A lock whose process is gone is taken over. Returns the function that releases it.
 */
export function lockWatchState(path: string): () => void {
  const lock = `${path}.lock`;
  ensurePrivateDir(join(path, "..", ".."), join(path, ".."), WHAT);
  for (let tries = 0; ; tries++) {
    try {
      const fd = openSync(lock, "wx", 0o600);
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return () => {
        if (holder(lock) === process.pid) rmSync(lock, { force: true });
      };
    } catch (error) {
      if ((error as { code?: string }).code !== "EEXIST" || tries > 0) {
        throw new CliError(`Cannot lock the watch state ${lock}: ${(error as Error).message}`, {
          cause: error,
        });
      }
    }
    const pid = holder(lock);
    if (pid !== undefined && alive(pid)) {
      throw new UsageError(
        `Another \`assess attempts watch\` of the same tests is running (process ${pid})`,
        `Stop it first, or watch other tests. If no such watch runs, delete ${lock}.`,
      );
    }
    rmSync(lock, { force: true });
  }
}

function holder(lock: string): number | undefined {
  try {
    const pid = Number(readFileSync(lock, "utf8").trim());
    return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists, as another user's process.
    return (error as { code?: string }).code === "EPERM";
  }
}
