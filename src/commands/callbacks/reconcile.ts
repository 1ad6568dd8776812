/**
 * `assess callbacks reconcile`: closes the loop the service leaves open after its last try. Lists the finished
 * attempts of a period, reads the notifications `callbacks listen --log` received, and resends (callbacks
 * process, chunks of ≤100, through the bulk engine and its ledger, as `callbacks resend` does) exactly the
 * attempts whose final notification never arrived. A rerun does not resend what an earlier run got queued.
 */
import { createReadStream } from "node:fs";
import { access } from "node:fs/promises";
import type { Context } from "../../context.js";
import { UsageError } from "../../errors.js";
import { field, isRecord } from "../../fields.js";
import { formatCount } from "../../output/progress.js";
import { id } from "../../parse/flags.js";
import * as z from "../../parse/zod.js";
import { MAX_CALLBACK_IDS } from "../../spec/limits.js";
import { attemptsOfPeriod, periodFromOptions, periodOptions } from "../attempts/period.js";
import { ledgerTarget } from "../shared/bulk-run.js";
import { idsOfList } from "./ids.js";
import { resendAndReport, resendChunk } from "./resend.js";

/** A log line longer than this is not one `callbacks listen` wrote (its bodies are at most 1 MiB). */
const MAX_LINE_BYTES = 8 * 1024 * 1024;
/** Ids listed on stderr; stdout and --json have them all. */
const SHOWN = 20;

export const options = z.object({
  ...periodOptions,
  log: z.string().min(1).optional(),
  test: z.array(id()).min(1, "give at least one test id").optional(),
});
type Options = z.infer<typeof options>;

export async function run(ctx: Context, o: Options): Promise<number> {
  if (o.log === undefined) {
    throw new UsageError(
      "Missing --log <listen.ndjson>: the notifications received",
      "Give the file `assess callbacks listen --log <file>` appends to.",
    );
  }
  const log = o.log;
  // The log is read first: a bad one is an error before any call.
  const received = await finalNotifications(log);
  const period = await periodFromOptions(ctx, { ...o, to: o.to ?? new Date() });
  const tests = new Set(o.test ?? []);
  const client = await ctx.client();
  ctx.planWithReads("Reading the period's finished attempts to know which notifications are missing");
  const progress = ctx.progress("windows");
  const attempts = new Set<number>();
  try {
    for await (const page of attemptsOfPeriod(ctx, client, period, "completed", (done, total) =>
      progress.update({ done, total }),
    )) {
      for (const attempt of page) {
        if (tests.size > 0 && !tests.has(Number(attempt.testId))) continue;
        attempts.add(attempt.testInvitationId);
      }
    }
  } finally {
    progress.done();
  }
  const missing = [...attempts].filter((attemptId) => !received.ids.has(attemptId)).sort((a, b) => a - b);
  const found = attempts.size - missing.length;
  const what = o.test ? ` of test${tests.size > 1 ? "s" : ""} ${[...tests].join(", ")}` : "";
  ctx.info(
    `${formatCount(attempts.size)} finished attempt${attempts.size === 1 ? "" : "s"}${what} in the period; ` +
      `${formatCount(found)} with a final notification in ${log}; ${formatCount(missing.length)} missing.`,
  );
  const report = (resent: number, alreadyQueued = 0) => {
    if (ctx.out.isJson) {
      ctx.out.json({ attempts: attempts.size, received: found, missing, resent, alreadyQueued });
    } else if (missing.length > 0) ctx.out.write(`${missing.join("\n")}\n`);
  };
  if (missing.length === 0) {
    ctx.success("Nothing to resend: every finished attempt's notification arrived");
    report(0);
    return 0;
  }
  const listed = missing.slice(0, SHOWN).join(", ") + (missing.length > SHOWN ? ", …" : "");
  if (ctx.dryRun) {
    ctx.info(
      `[dry-run] the attempts were listed (reads); would resend the notifications of ${formatCount(missing.length)}: ${listed}. Nothing was sent.`,
    );
    report(0);
    return 0;
  }
  ctx.info(`Resending the notifications of ${listed}`);
  const { baseUrl, key } = await ledgerTarget(ctx, "assess");
  const name = "the missing notifications";
  let outcome = { resent: 0, alreadyQueued: 0 };
  const code = await resendAndReport(
    ctx,
    {
      kind: "callbacks",
      inputName: name,
      read: () => idsOfList(missing, name),
      target: () => ({ baseUrl, key }),
      chunkSize: MAX_CALLBACK_IDS,
      maxChunk: MAX_CALLBACK_IDS,
      concurrency: 2,
      skipInvalid: false,
      send: (_group, rows) =>
        resendChunk(
          client,
          rows.map((row) => Number(row.label)),
        ),
    },
    { verb: "Queued", noun: ["id", "ids"], target: "for re-delivery", inputName: name, json: "never" },
    (result) => {
      outcome = { resent: result.sent - result.failed, alreadyQueued: result.alreadyDone };
    },
  );
  report(outcome.resent, outcome.alreadyQueued);
  return code;
}

interface Received {
  /** Attempts with a final notification (Complete, Terminated, Test Left: anything but In Progress). */
  ids: Set<number>;
  lines: number;
}

/**
 * The attempts whose final notification the log holds: lines `callbacks listen --log` wrote (the notification
 * under `notification`, rejected requests skipped) or bare notifications, `TestInvitationId` in any casing.
 */
export async function finalNotifications(file: string): Promise<Received> {
  try {
    await access(file);
  } catch {
    throw new UsageError(
      `--log ${file}: no such file`,
      "Give the file `assess callbacks listen --log <file>` appends to.",
    );
  }
  const ids = new Set<number>();
  let count = 0;
  for await (const { text, line, last } of linesOf(file)) {
    count = line;
    if (text.trim() === "") continue;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      // The last line of a listener killed mid-write is cut short: skipped, as it never said anything whole.
      if (last) continue;
      throw new UsageError(
        `--log ${file}:${line}: not a JSON line`,
        "Give the NDJSON file `assess callbacks listen --log` writes (one JSON object per line).",
      );
    }
    if (!isRecord(value)) {
      throw new UsageError(`--log ${file}:${line}: expected a JSON object (a received notification)`);
    }
    const answered = value.answered;
    if (typeof answered === "number" && (answered < 200 || answered > 299)) continue;
    const notification = isRecord(value.notification) ? value.notification : value;
    const rawId = field(notification, "TestInvitationId");
    const attemptId = typeof rawId === "string" && /^\d+$/.test(rawId.trim()) ? Number(rawId) : rawId;
    if (typeof attemptId !== "number" || !Number.isSafeInteger(attemptId) || attemptId <= 0) continue;
    const status = field(notification, "Status");
    if (typeof status === "string" && /in\s*progress/i.test(status)) continue;
    ids.add(attemptId);
  }
  return { ids, lines: count };
}

/** The file's lines (LF or CRLF), each at most MAX_LINE_BYTES; `last` marks a final line without its newline. */
async function* linesOf(file: string): AsyncGenerator<{ text: string; line: number; last: boolean }> {
  let line = 0;
  let rest = Buffer.alloc(0);
  for await (const chunk of createReadStream(file) as AsyncIterable<Buffer>) {
    let data = rest.length > 0 ? Buffer.concat([rest, chunk]) : chunk;
    for (let end = data.indexOf(10); end !== -1; end = data.indexOf(10)) {
      line++;
      yield { text: data.subarray(0, end).toString("utf8").replace(/\r$/, ""), line, last: false };
      data = data.subarray(end + 1);
    }
    if (data.length > MAX_LINE_BYTES) {
      throw new UsageError(
        `--log ${file}:${line + 1}: a line longer than ${MAX_LINE_BYTES / 1024 / 1024} MiB`,
        "Give the NDJSON file `assess callbacks listen --log` writes.",
      );
    }
    rest = Buffer.from(data);
  }
  if (rest.length > 0) yield { text: rest.toString("utf8"), line: line + 1, last: true };
}
