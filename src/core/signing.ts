/**
 * Standard Webhooks signatures (https://www.standardwebhooks.com): each forward to a plain URL carries
 * `webhook-id`, `webhook-timestamp` (Unix seconds) and `webhook-signature: v1,<base64 HMAC-SHA256 of
 * "id.timestamp.body">`, keyed with the secret's bytes (`whsec_` + base64). Several secrets (a rotation: the
 * receiver moves from the old to the new while both sign) give one `v1,…` each, space-separated, in the order
 * given. The signer redacts itself.
 */
import { createHmac } from "node:crypto";
import { inspect } from "node:util";
import { UsageError } from "../errors.js";

export const SECRET_ENV = "ASSESS_WEBHOOK_SECRET";
const MAKE_ONE = "Make one with: echo whsec_$(openssl rand -base64 32)";

export class Signer {
  readonly #keys: Buffer[];

  /** Each `whsec_<base64>` (the prefix may be left out); 24 to 64 bytes, as the specification asks. */
  constructor(secrets: string[], from: string) {
    this.#keys = [...new Set(secrets)].map((secret) => key(secret, from));
  }

  headers(id: string, body: string | Buffer, now = Date.now()): Record<string, string> {
    const timestamp = String(Math.floor(now / 1000));
    const signatures = this.#keys.map(
      (key) => `v1,${createHmac("sha256", key).update(`${id}.${timestamp}.`).update(body).digest("base64")}`,
    );
    return { "webhook-id": id, "webhook-timestamp": timestamp, "webhook-signature": signatures.join(" ") };
  }

  toJSON(): string {
    return "[signing secret redacted]";
  }

  [inspect.custom](): string {
    return "Signer [signing secret redacted]";
  }
}

function key(secret: string, from: string): Buffer {
  const encoded = secret.trim().replace(/^whsec_/, "");
  const key = Buffer.from(encoded, "base64");
  const canonical = key.toString("base64").replace(/=+$/, "");
  if (!/^[A-Za-z0-9+/]+=*$/.test(encoded) || canonical !== encoded.replace(/=+$/, "")) {
    throw new UsageError(`${from} is not a Standard Webhooks secret (whsec_ followed by base64)`, MAKE_ONE);
  }
  if (key.length < 24 || key.length > 64) {
    throw new UsageError(`${from} holds ${key.length} bytes; a signing secret has 24 to 64`, MAKE_ONE);
  }
  return key;
}

/**
 * The signer of what `flag` forwards to a plain URL (`destinationKind` "json"): from each `--signing-secret`,
 * else ASSESS_WEBHOOK_SECRET (read and checked only then; several secrets there are space-separated), else
 * none. `--signing-secret` elsewhere is an error.
 */
export function signerFor(
  flag: string,
  destinationKind: string | undefined,
  secrets: string[] | undefined,
  env: NodeJS.ProcessEnv,
): Signer | undefined {
  if (destinationKind !== "json") {
    if (secrets === undefined) return undefined;
    throw new UsageError(
      `--signing-secret signs what ${flag} sends to a plain URL`,
      `Give ${flag} <url>, or leave --signing-secret out.`,
    );
  }
  if (secrets !== undefined) return new Signer(secrets, "--signing-secret");
  const value = env[SECRET_ENV]?.trim();
  return value ? new Signer(value.split(/\s+/), SECRET_ENV) : undefined;
}

/** A webhook-id from an attempt id and its status: `assess_50123_completed`. */
export function webhookId(testInvitationId: unknown, status: unknown): string {
  const slug = (value: unknown) =>
    String(value ?? "")
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, "-")
      .replace(/^-|-$/g, "")
      .slice(0, 40);
  return ["assess", slug(testInvitationId) || "unknown", slug(status) || "finished"].join("_");
}
