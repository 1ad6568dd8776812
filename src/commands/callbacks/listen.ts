/** `assess callbacks listen`: a local receiver that prints, logs and forwards each notification. */
import { randomBytes } from "node:crypto";
import { once } from "node:events";
import { createWriteStream, type WriteStream } from "node:fs";
import { hostname } from "node:os";
import { openForAppend } from "../../config/private.js";
import type { Context } from "../../context.js";
import { describeDestination, Forwarder, parseDestination } from "../../core/forward.js";
import { signerFor } from "../../core/signing.js";
import { UsageError } from "../../errors.js";
import { escapeControls, jsonText } from "../../escape.js";
import { field } from "../../fields.js";
import { FLAG } from "../../parse/flag.js";
import { duration, int, parsed } from "../../parse/flags.js";
import * as z from "../../parse/zod.js";
import { listenError } from "../shared/listen.js";
import { type ReceivedEvent, startListener } from "./listener.js";

const LOOPBACK = new Set(["127.0.0.1", "::1", "localhost"]);

export const options = z.object({
  port: int(0, 65_535),
  host: z.string(),
  forwardTo: parsed((text) => parseDestination(text, FLAG)).optional(),
  forwardTimeout: duration(1000),
  signingSecret: z.array(z.string()).optional(),
  log: z.string().optional(),
  secretPath: z.boolean().optional(),
});

export async function run(ctx: Context, o: z.infer<typeof options>): Promise<number> {
  const { port, host, forwardTo } = o;
  const signer = signerFor("--forward-to", forwardTo?.kind, o.signingSecret, ctx.io.env);
  const forwarder = forwardTo && new Forwarder(forwardTo, signer, o.forwardTimeout);
  // 24 random bytes: the path is the only thing standing between the receiver and anyone who can reach it.
  const secretPath = o.secretPath ? `/${randomBytes(24).toString("base64url")}` : undefined;
  const log = o.log === undefined ? undefined : await openLog(o.log);
  const counts = { notifications: 0, duplicates: 0, rejected: 0 };

  const onEvent = (event: ReceivedEvent) => {
    log?.write(`${jsonText(event)}\n`);
    if (event.error !== undefined) {
      counts.rejected++;
      ctx.warn(`answered ${event.answered} to a request: ${event.error}`);
      return;
    }
    counts.notifications++;
    if (event.duplicate) counts.duplicates++;
    ctx.out.write(ctx.out.format === "table" ? `${humanLine(event)}\n` : `${jsonText(event)}\n`);
  };

  const listener = await startListener({ host, port, secretPath, forwarder, onEvent }).catch(
    async (error) => {
      log?.end();
      await forwarder?.close();
      throw listenError(host, port, error);
    },
  );

  const callbackUrl = ["0.0.0.0", "::"].includes(host)
    ? listener.callbackUrl.replace(/\/\/[^/]+:/, `//${hostname()}:`)
    : listener.callbackUrl;
  ctx.info(`Listening for test-completion notifications on ${listener.origin}`);
  ctx.info(`Callback URL to use: ${callbackUrl}`);
  if (secretPath === undefined && !LOOPBACK.has(host)) {
    ctx.warn("the receiver is reachable from the network and accepts any path; add --secret-path");
  }
  if (forwardTo) {
    const signed = forwarder?.signed ? ", signed (Standard Webhooks)" : "";
    ctx.info(`Forwarding each notification to ${describeDestination(forwardTo)}${signed}`);
  }
  if (log) ctx.info(`Appending each request to ${o.log}`);
  ctx.info("Press Ctrl-C to stop.");

  if (!ctx.signal.aborted) await once(ctx.signal, "abort");
  await listener.close();
  await forwarder?.close();
  if (log) {
    log.end();
    await once(log, "close");
  }
  ctx.info(
    `Stopped: ${counts.notifications} notification${counts.notifications === 1 ? "" : "s"} ` +
      `(${counts.duplicates} duplicate), ${counts.rejected} rejected request${counts.rejected === 1 ? "" : "s"}.`,
  );
  return 0;
}

/**
 * `10:41:03  50123     Complete     2020-10-09 13:21Z  ada@example.com  42/60 Strong  → 200  duplicate`, fields
 * read in any casing; anyone who can reach the receiver writes them, so control characters are escaped.
 */
function humanLine(event: ReceivedEvent): string {
  const n = event.notification ?? {};
  const candidateScore = field(n, "CandidateScore");
  const totalScore = field(n, "TotalScore");
  const score =
    candidateScore !== undefined && totalScore !== undefined ? `${candidateScore}/${totalScore}` : "";
  const attempted = event.attemptedAt
    ? `${event.attemptedAt.slice(0, 10)} ${event.attemptedAt.slice(11, 16)}Z`
    : String(field(n, "AttemptedOn") ?? "");
  const cells = [
    event.receivedAt.slice(11, 19),
    String(event.testInvitationId ?? "?").padEnd(8),
    String(event.status ?? "?").padEnd(11),
    attempted.padEnd(19),
    String(field(n, "CandidateEmailId") ?? "").padEnd(28),
    `${score} ${field(n, "PerformanceCategory") ?? ""}`.trim().padEnd(16),
  ];
  if (event.forward) cells.push(`→ ${event.forward.status ?? event.forward.error ?? "failed"}`);
  if (event.duplicate) cells.push("duplicate");
  return escapeControls(cells.join("  ").trimEnd());
}

/** Created 0600 (it keeps candidates' data), never through a link planted in the log's place. */
async function openLog(file: string): Promise<WriteStream> {
  let fd: number;
  try {
    fd = openForAppend(file);
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === "ELOOP") {
      throw new UsageError(
        `--log ${file} is a symbolic link; assess does not append through links`,
        "Give the path of the file itself, or another --log.",
      );
    }
    throw new UsageError(`--log ${file}: cannot open it for appending (${code ?? (error as Error).message})`);
  }
  return createWriteStream(file, { fd });
}
