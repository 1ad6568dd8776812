/**
 * The bearer tokens of `assess mcp --http`: each a name (the session's actor), the write groups it allows and
 * the profile whose key its sessions send. A token is shown once, when made; only its SHA-256 is kept, in
 * mcp-tokens.json in the config folder (0600, through config/private.ts). The file is read again for every
 * request, so a token revoked is refused at once by a server already running.
 */
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { checkPrivateDir, ensurePrivateDir, writePrivateFile } from "../config/private.js";
import { configDir } from "../config/store.js";
import { UsageError } from "../errors.js";
import { WRITE_GROUPS, type WriteGroup } from "./groups.js";

export interface StoredToken {
  name: string;
  /** SHA-256 of the token, hex. */
  hash: string;
  writes: WriteGroup[];
  /** The profile whose key and URLs its sessions use; absent: the server's. */
  profile?: string;
  created: string;
}

const FILE_NAME = "mcp-tokens.json";
/** What a token starts with, so a secret scanner can tell it. */
const PREFIX = "assess_mcp_";
const NAME = /^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$/;

export function tokensPath(env: NodeJS.ProcessEnv): string {
  return join(configDir(env), FILE_NAME);
}

/** The stored tokens; none when the file is not there. */
export function readTokens(env: NodeJS.ProcessEnv): StoredToken[] {
  const dir = configDir(env);
  checkPrivateDir(dir, "the config folder", true);
  let text: string;
  try {
    text = readFileSync(tokensPath(env), "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw error;
  }
  let data: { tokens?: unknown } | null;
  try {
    data = JSON.parse(text) as { tokens?: unknown } | null;
  } catch {
    data = null;
  }
  if (!Array.isArray(data?.tokens)) {
    throw new UsageError(
      `${tokensPath(env)} is not a token file assess wrote`,
      "Move it aside, then make the tokens again with `assess mcp token create`.",
    );
  }
  return (data.tokens as StoredToken[]).filter(
    (t) =>
      typeof t === "object" &&
      t !== null &&
      typeof t.name === "string" &&
      typeof t.hash === "string" &&
      Array.isArray(t.writes),
  );
}

function writeTokens(env: NodeJS.ProcessEnv, tokens: StoredToken[]): void {
  const dir = configDir(env);
  ensurePrivateDir(dir, dir, "the config folder");
  writePrivateFile(tokensPath(env), `${JSON.stringify({ tokens }, null, 2)}\n`);
}

const hashOf = (token: string) => createHash("sha256").update(token, "utf8").digest("hex");

/** Makes and stores the token `name`; returns it (the only time it is seen) and what is stored. */
export function createToken(
  env: NodeJS.ProcessEnv,
  name: string,
  writes: WriteGroup[],
  profile: string | undefined,
): { token: string; stored: StoredToken } {
  if (!NAME.test(name)) {
    throw new UsageError(
      `token name "${name}" is not one: letters, digits, and . _ @ - (64 at most), starting with a letter or digit`,
      "Name it after the person or the machine that will use it, e.g. alice or ci-bot.",
    );
  }
  const tokens = readTokens(env);
  if (tokens.some((t) => t.name === name)) {
    throw new UsageError(
      `A token named "${name}" exists already; nothing was changed`,
      `Revoke it first (\`assess mcp token revoke ${name}\`), or choose another name.`,
    );
  }
  const token = `${PREFIX}${randomBytes(32).toString("base64url")}`;
  const stored: StoredToken = {
    name,
    hash: hashOf(token),
    writes: WRITE_GROUPS.filter((group) => writes.includes(group)),
    ...(profile !== undefined ? { profile } : {}),
    created: new Date().toISOString(),
  };
  writeTokens(env, [...tokens, stored]);
  return { token, stored };
}

/** Removes the token `name`; false when there is none. */
export function revokeToken(env: NodeJS.ProcessEnv, name: string): boolean {
  const tokens = readTokens(env);
  const kept = tokens.filter((t) => t.name !== name);
  if (kept.length === tokens.length) return false;
  writeTokens(env, kept);
  return true;
}

/**
 * The stored token `presented` is, compared by hash in constant time with every stored one (no early end, so
 * the time taken says nothing of which matched).
 */
export function findToken(tokens: StoredToken[], presented: string): StoredToken | undefined {
  const hash = Buffer.from(hashOf(presented), "hex");
  let found: StoredToken | undefined;
  for (const token of tokens) {
    const stored = Buffer.from(token.hash, "hex");
    if (stored.length === hash.length && timingSafeEqual(stored, hash)) found ??= token;
  }
  return found;
}
