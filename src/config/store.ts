import { lstatSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { UsageError } from "../errors.js";
import { ensurePrivateDir, writePrivateFile } from "./private.js";

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
 * Reading is a plain JSON read of the file: every API command reads its profile.
 */
export function readProfile(env: NodeJS.ProcessEnv, profile: string): Profile {
  return readFile(env).profiles?.[profile] ?? {};
}

export function listProfiles(env: NodeJS.ProcessEnv): Record<string, Profile> {
  return readFile(env).profiles ?? {};
}

function readFile(env: NodeJS.ProcessEnv): ConfigFile {
  let text: string;
  try {
    text = readFileSync(configPath(env), "utf8");
  } catch {
    return {};
  }
  try {
    const parsed: unknown = JSON.parse(text);
    return typeof parsed === "object" && parsed !== null ? (parsed as ConfigFile) : {};
  } catch {
    throw new Error(
      `The config file ${configPath(env)} is not valid JSON; fix it or delete it and run \`assess auth login\``,
    );
  }
}

/**
 * Sets (or, with `undefined`, removes) keys of one profile. The file is written whole under a new name and
 * renamed into place, mode 0600, in a folder held to config/private.ts's rule; a link in its place is refused
 * (the key would be written into whatever it points to).
 */
export async function writeProfile(env: NodeJS.ProcessEnv, profile: string, changes: Profile): Promise<void> {
  const dir = configDir(env);
  ensurePrivateDir(dir, dir, "the config folder");
  const path = configPath(env);
  if (lstatSync(path, { throwIfNoEntry: false })?.isSymbolicLink()) {
    throw new UsageError(
      `${path} is a symbolic link; assess does not write the key through links`,
      `Put the file itself in its place (or delete the link and run \`assess auth login\` again); nothing was written.`,
    );
  }
  const file = readFile(env);
  const profiles: Record<string, Profile> = { ...file.profiles };
  const settings: Profile = { ...profiles[profile] };
  for (const [key, value] of Object.entries(changes) as Array<[keyof Profile, string | undefined]>) {
    if (value === undefined) delete settings[key];
    else settings[key] = value;
  }
  profiles[profile] = settings;
  writePrivateFile(path, `${JSON.stringify({ ...file, profiles }, null, "\t")}\n`);
}
