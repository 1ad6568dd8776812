import { chmodSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";

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
 * Reading is a plain JSON read of conf's file: every API command reads its profile, and loading conf
 * (with its schema validator) on that path would cost start-up time for nothing. Writes go through conf.
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

/** Sets (or, with `undefined`, removes) keys of one profile; the file stays mode 0600. */
export async function writeProfile(env: NodeJS.ProcessEnv, profile: string, changes: Profile): Promise<void> {
  const { default: Conf } = await import("conf");
  const store = new Conf<ConfigFile>({
    cwd: configDir(env),
    configName: FILE_NAME.replace(/\.json$/, ""),
    projectName: "assess",
    configFileMode: 0o600,
  });
  for (const [key, value] of Object.entries(changes)) {
    // Keys contain dashes, not dots, so conf's dot-path addressing is safe; escape anyway for profile names.
    const path = `profiles.${profile.replaceAll(".", "\\.")}.${key}`;
    if (value === undefined) store.delete(path as never);
    else store.set(path, value);
  }
  // conf applies the mode when it creates the file; an older file may have been 0644.
  chmodSync(store.path, 0o600);
}
