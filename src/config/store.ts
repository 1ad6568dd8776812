import {
  closeSync,
  constants,
  fchmodSync,
  fstatSync,
  lstatSync,
  openSync,
  readFileSync,
  type Stats,
  statSync,
} from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { UsageError } from "../errors.js";
import { ensurePrivateDir } from "./private.js";

/** Settings a profile may hold; the names are the ones `assess config set` takes. */
export const CONFIG_KEYS = [
  "api-key",
  "base-url",
  "skills-base-url",
  "output",
  "timeout",
  "retries",
] as const;
export type ConfigKey = (typeof CONFIG_KEYS)[number];
export type Profile = Partial<Record<ConfigKey, string>>;
interface ConfigFile {
  profiles?: Record<string, Profile>;
}

const FILE_NAME = "config.json";

/**
 * `ASSESS_CONFIG_DIR`, else the platform's config folder. Ledgers of bulk runs live here too, and the compile
 * caches of src/runtime/code-cache.ts.
 */
export function configDir(env: NodeJS.ProcessEnv): string {
  if (env.ASSESS_CONFIG_DIR) return env.ASSESS_CONFIG_DIR;
  if (process.platform === "win32" && env.APPDATA) return join(env.APPDATA, "assess");
  return join(env.XDG_CONFIG_HOME || join(homedir(), ".config"), "assess");
}

export function configPath(env: NodeJS.ProcessEnv): string {
  return join(configDir(env), FILE_NAME);
}

/**
 * config.json is conf's file (https://github.com/sindresorhus/conf): conf writes it, whole and atomically. An
 * API command only reads its profile, and that read is a plain JSON read of the same file: conf is loaded by
 * the commands that change a profile (auth login/logout, config set/unset), never on the start-up path, and the
 * SDK, which reads profiles too, never carries it.
 */
export function readProfile(env: NodeJS.ProcessEnv, profile: string): Profile {
  return readFile(env).profiles?.[profile] ?? {};
}

export function listProfiles(env: NodeJS.ProcessEnv): Record<string, Profile> {
  return readFile(env).profiles ?? {};
}

/** A profile or two is a few hundred bytes; a file past this is not a config file, and is not read whole. */
const MAX_BYTES = 1024 * 1024;

function readFile(env: NodeJS.ProcessEnv): ConfigFile {
  const path = configPath(env);
  let text: string;
  try {
    // A FIFO would block the read, and a huge file would be read whole: neither is read.
    const info = statSync(path);
    if (!info.isDirectory() && (!info.isFile() || info.size > MAX_BYTES)) throw notAConfigFile(path, info);
    text = readFileSync(path, "utf8");
  } catch (error) {
    if (error instanceof UsageError) throw error;
    return {};
  }
  try {
    const parsed: unknown = JSON.parse(text);
    return typeof parsed === "object" && parsed !== null ? (parsed as ConfigFile) : {};
  } catch {
    throw invalidJson(path);
  }
}

function invalidJson(path: string): UsageError {
  return new UsageError(
    `The config file ${path} is not valid JSON`,
    "Fix it, or delete it and run `assess auth login`; nothing was sent.",
  );
}

function notAConfigFile(path: string, info: Stats): UsageError {
  return new UsageError(
    info.isFile()
      ? `The config file ${path} is ${info.size} bytes; a config file is a few hundred`
      : `The config file ${path} is not a regular file`,
    "Put the config file in its place, or delete it and run `assess auth login`; nothing was sent.",
  );
}

/**
 * Sets (or, with `undefined`, removes) keys of one profile, through conf, under config/private.ts's rule:
 *
 * - the folder is made (0700) and checked (not a link unless it is the config folder itself, not writable by
 *   others, the user's own) before conf reads or writes anything in it;
 * - config.json is checked with lstat before conf reads it and again right before conf writes it: a symbolic
 *   link, something other than a file, another user's file, a file with other names (hard links) or an
 *   oversized one is refused. conf's writer
 *   (atomically) resolves links and writes, chmods and chowns whatever the link points to; with the file
 *   itself in place, in a folder no one else can write, it writes a new file beside it (0600) and renames it
 *   over the old one, and nothing outside the folder is touched;
 * - conf writes in place instead when `SNAP` is set (node from a snap) or the rename crosses devices; an older
 *   0644 file would then keep its mode, so the file is narrowed to 0600 afterwards, through a descriptor that
 *   never follows a link.
 */
export async function writeProfile(env: NodeJS.ProcessEnv, profile: string, changes: Profile): Promise<void> {
  const { default: Conf } = await import("conf");
  const dir = configDir(env);
  ensurePrivateDir(dir, dir, "the config folder");
  const path = configPath(env);
  checkWritable(path);
  let store: InstanceType<typeof Conf<ConfigFile>>;
  try {
    store = new Conf<ConfigFile>({
      cwd: dir,
      configName: FILE_NAME.replace(/\.json$/, ""),
      configFileMode: 0o600,
      // Profile names are the user's: "eu.prod" is one name, not a path into the file.
      accessPropertiesByDotNotation: false,
      serialize: (value) => `${JSON.stringify(value, null, "\t")}\n`,
    });
  } catch (error) {
    if (error instanceof SyntaxError) throw invalidJson(path);
    throw error;
  }
  const profiles: Record<string, Profile> = { ...objectOrEmpty(store.get("profiles")) };
  const settings: Profile = { ...objectOrEmpty(profiles[profile]) };
  for (const [key, value] of Object.entries(changes) as Array<[keyof Profile, string | undefined]>) {
    if (value === undefined) delete settings[key];
    else settings[key] = value;
  }
  profiles[profile] = settings;
  checkWritable(path);
  store.set("profiles", profiles);
  narrowMode(path);
}

/**
 * config.json may be written: absent, or this user's own regular file of a sane size. A link is refused (the
 * key would be written into whatever it points to), and so is anything else that is not that file.
 */
function checkWritable(path: string): void {
  const info = lstatSync(path, { throwIfNoEntry: false });
  if (info === undefined) return;
  if (info.isSymbolicLink()) {
    throw new UsageError(
      `${path} is a symbolic link; assess does not write the key through links`,
      `Put the file itself in its place (or delete the link and run \`assess auth login\` again); nothing was written.`,
    );
  }
  if (!info.isFile() || info.size > MAX_BYTES) throw notAConfigFile(path, info);
  const uid = process.getuid?.();
  if (uid !== undefined && info.uid !== uid) {
    throw new UsageError(
      `${path} belongs to another user (uid ${info.uid}); assess does not write the key into it`,
      "Put a file of your own in its place, or point ASSESS_CONFIG_DIR at a folder of your own; nothing was written.",
    );
  }
  // Another name of the same file may be outside the folder, and conf may write the file in place.
  if (info.nlink > 1) {
    throw new UsageError(
      `${path} has ${info.nlink - 1} other name(s) (hard links); assess does not write the key into a shared file`,
      "Put a copy in its place (`cp config.json c && mv c config.json` in that folder); nothing was written.",
    );
  }
}

function narrowMode(path: string): void {
  if (process.platform === "win32") return;
  const fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW);
  try {
    if ((fstatSync(fd).mode & 0o077) !== 0) fchmodSync(fd, 0o600);
  } finally {
    closeSync(fd);
  }
}

function objectOrEmpty(value: unknown): Record<string, never> {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as Record<string, never>)
    : {};
}
