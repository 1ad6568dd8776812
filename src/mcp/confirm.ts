/**
 * Preview before change: a write tool whose effect is `overwrite` (cancel, mask, every status change, every
 * update), called without `confirmToken`, sends nothing. It answers with a preview: the request that would be
 * sent (the tool run against a transport that sends its reads and stops at its first write, as `--dry-run`
 * does), the current state of what it changes where the service has a read of it (the GET of the write's own
 * path: a test link), field by field what would change, and a token. Called again with the same arguments and
 * that token it sends, once. The token is the bulk tools' plan token (`sign`, an HMAC under the server's
 * secret) of the tool, its arguments, the request, the current state and an expiry: a token of other arguments
 * or of a state that changed since is refused, so is one expired, and one already used (each is single-use).
 */

import { createHmac, timingSafeEqual } from "node:crypto";
import { Api, type Read } from "../api/endpoints.js";
import { OPERATIONS, type Operation, pathParameters } from "../api/operations/index.js";
import { type DryRunRequest, Transport } from "../api/transport.js";
import { DryRunStop, UsageError } from "../errors.js";
import { isRecord } from "../fields.js";
import * as z from "../parse/zod.js";
import { Client } from "../sdk/client.js";
import type { Tool, ToolEnv } from "./tool.js";

/** How long a preview's token is good for. */
export const CONFIRM_MINUTES = 5;
const CONFIRM_MS = CONFIRM_MINUTES * 60_000;

/** What every previewed tool's description adds. */
export const HOW_TO_CONFIRM = ` First call it without confirmToken: nothing is sent, and the answer is a preview (the request that would be sent, the current state where the service can read it, what would change) with a confirmToken. Show the preview to the user; only once they agree, call again with the same arguments and that confirmToken (single use, good for ${CONFIRM_MINUTES} minutes).`;

/** The plan and confirmation tokens' HMAC (under this server's secret) of everything they are bound to. */
export function sign(key: Buffer, value: unknown): string {
  return createHmac("sha256", key).update(JSON.stringify(value)).digest("base64url").slice(0, 32);
}

/** A token good until `expires` (ms since the epoch) for what `bound` holds: the expiry, then its HMAC. */
export function confirmTokenOf(key: Buffer, bound: unknown, expires: number): string {
  return `${expires.toString(36)}.${sign(key, ["confirm", bound, expires])}`;
}

/** Tokens used, by the secret they were made under, until they expire: each confirms one call. */
const USED = new WeakMap<Buffer, Map<string, number>>();

/**
 * Why `token` does not confirm `bound` at `now`, or undefined when it does; then it is spent: the same token
 * again is refused.
 */
export function spendConfirmToken(
  key: Buffer,
  bound: unknown,
  token: string,
  now: number,
): string | undefined {
  const used = USED.get(key) ?? new Map<string, number>();
  USED.set(key, used);
  for (const [spent, expires] of used) if (expires <= now) used.delete(spent);
  if (used.has(token)) return "this confirmToken was used already: each confirms one call";
  const match = /^([0-9a-z]{1,12})\.([\w-]{32})$/.exec(token);
  const expires = match ? Number.parseInt(match[1]!, 36) : Number.NaN;
  const expected = Number.isFinite(expires) ? confirmTokenOf(key, bound, expires) : "";
  const same = expected.length === token.length && timingSafeEqual(Buffer.from(expected), Buffer.from(token));
  if (!same) {
    return "confirmToken is not the token of this preview: the arguments, or what the preview showed of the current state, changed since it was given (or it came from another server)";
  }
  if (expires <= now) return `this confirmToken expired ${CONFIRM_MINUTES} minutes after its preview`;
  used.set(token, expires);
  return undefined;
}

/** The tool `tool` with its preview first: what tools.ts offers of each overwrite tool without a plan of its own. */
export function withPreview(name: string, tool: Tool): Tool {
  return {
    ...tool,
    description: `${tool.description}${HOW_TO_CONFIRM}`,
    input: () =>
      (tool.input() as ReturnType<typeof z.strictObject>).extend({
        confirmToken: z
          .string()
          .max(100)
          .optional()
          .describe(
            "Omit to get the preview (nothing is sent); then call again with the same arguments and the preview's confirmToken to send",
          ),
      }),
    call: async (env, args) => {
      const { confirmToken, ...rest } = args as { confirmToken?: string };
      const preview = await previewOf(env, tool, rest);
      const bound = [name, rest, preview.requests, preview.current ?? null];
      const now = Date.now();
      if (confirmToken === undefined) {
        const expires = now + CONFIRM_MS;
        return answer(name, preview, confirmTokenOf(env.planKey, bound, expires), expires);
      }
      const refused = spendConfirmToken(env.planKey, bound, confirmToken, now);
      if (refused) {
        throw new UsageError(
          `${refused}; nothing was sent`,
          "Call again without confirmToken to see the current preview, and show it to the user.",
        );
      }
      return tool.call(env, rest);
    },
  };
}

interface Preview {
  /** The write requests the call would send (method, URL, body), the key not among them. */
  requests: Array<Omit<DryRunRequest, "headers">>;
  /** The service's answer of the GET of the write's path, when there is one. */
  current?: unknown;
  read?: Read;
}

/** What `tool` would send with `args`, and the current state of what it changes: nothing is written. */
async function previewOf(env: ToolEnv, tool: Tool, args: Record<string, unknown>): Promise<Preview> {
  const read = tool.operation ? readerOf(tool.operation) : undefined;
  const current =
    read === undefined
      ? undefined
      : await env.client.api.call(read, pathParameters(OPERATIONS[read].path).map((id) => args[id]) as never);
  const requests: Preview["requests"] = [];
  const { options } = env.client.api.transport;
  const dry = new Client(
    new Api(
      new Transport({
        ...options,
        apiKey: options.apiKey,
        // Reads are sent (a tool may read to decide); the first write is kept, and stops the call.
        dryRun: ({ method, url, body }, readOnly) => {
          if (!readOnly) requests.push({ method, url, ...(body !== undefined ? { body } : {}) });
          return readOnly;
        },
      }),
    ),
    env.ctx.io.env,
  );
  try {
    await tool.call({ ...env, client: dry }, args);
  } catch (error) {
    if (!(error instanceof DryRunStop)) throw error;
  } finally {
    await dry.close();
  }
  return { requests, ...(read ? { read, current } : {}) };
}

/** The read of a write's object: the GET of the same path (a test link's), if the table has one. */
function readerOf(operation: Operation): Read | undefined {
  const { path } = OPERATIONS[operation];
  const found = Object.entries(OPERATIONS).find(
    ([, record]) => record.method === "GET" && record.path === path && "read" in record,
  );
  return found?.[0] as Read | undefined;
}

function answer(name: string, { requests, current, read }: Preview, token: string, expires: number) {
  const body = requests[0]?.body;
  const changes =
    isRecord(current) && isRecord(body)
      ? Object.entries(body).flatMap(([field, to]) =>
          JSON.stringify(current[field]) === JSON.stringify(to)
            ? []
            : [{ field, from: current[field] ?? null, to }],
        )
      : undefined;
  return {
    preview: true,
    tool: name,
    sends: requests,
    ...(read
      ? { current, currentFrom: `GET ${OPERATIONS[read].path}`, changes }
      : { current: null, currentFrom: "the service has no read of it: what changes is the request sent" }),
    confirmToken: token,
    expiresAt: new Date(expires).toISOString(),
    next:
      requests.length === 0
        ? "This call would send nothing."
        : changes !== undefined && changes.length === 0
          ? `Nothing would change: every field sent has that value already. Call ${name} again with the same arguments and this confirmToken to send it anyway.`
          : `Nothing was sent. Show this to the user; only once they agree, call ${name} again with the same arguments and this confirmToken.`,
  };
}
