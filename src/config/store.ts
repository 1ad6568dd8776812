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
import { isRecord } from "../fields.js";
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

/** `ASSESS_CONFIG_DIR`, else the platform's config folder; bulk ledgers and code caches live here too. */
export function configDir(env: NodeJS.ProcessEnv): string {
  if (env.ASSESS_CONFIG_DIR) return env.ASSESS_CONFIG_DIR;
  if (process.platform === "win32" && env.APPDATA) return join(env.APPDATA, "assess");
  return join(env.XDG_CONFIG_HOME || join(homedir(), ".config"), "assess");
}

export function configPath(env: NodeJS.ProcessEnv): string {
  return join(configDir(env), FILE_NAME);
}

/** config.json is conf's file, read as plain JSON: conf loads only where a profile changes (writeProfile). */
export function readProfile(env: NodeJS.ProcessEnv, profile: string): Profile {
  return listProfiles(env)[profile] ?? {};
}

/** A profile or two is a few hundred bytes; a file past this is not a config file, and is not read whole. */
const MAX_BYTES = 1024 * 1024;

export function listProfiles(env: NodeJS.ProcessEnv): Record<string, Profile> {
  const path = configPath(env);
  let text: string;
  try {
    // Neither a FIFO (the read would block) nor a huge file is read.
    const info = statSync(path);
    if (!info.isDirectory() && (!info.isFile() || info.size > MAX_BYTES)) throw notAConfigFile(path, info);
    text = readFileSync(path, "utf8");
  } catch (error) {
    if (error instanceof UsageError) throw error;
    return {};
  }
  try {
    // Any JSON value reads: one without profiles has none.
    return (JSON.parse(text) as ConfigFile | null)?.profiles ?? {};
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
 * Sets (or, with `undefined`, removes) keys of one profile through conf, under config/private.ts's rule: the
 * folder is checked before conf touches it, and config.json (checkWritable) before conf reads it and again
 * before it writes, since conf's writer follows links. conf may write in place (under SNAP, or across
 * devices), keeping an older 0644 mode: the file is narrowed to 0600 afterwards, never through a link.
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
  const settings: Profile = { ...objectOrEmpty(profiles[profile]), ...changes };
  // A change to `undefined` removes the setting.
  for (const key of CONFIG_KEYS) if (settings[key] === undefined) delete settings[key];
  profiles[profile] = settings;
  checkWritable(path);
  store.set("profiles", profiles);
  narrowMode(path);
}

/** config.json may be written: absent, or this user's own regular file of a sane size, not a link. */
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
  return isRecord(value) ? (value as Record<string, never>) : {};
}
