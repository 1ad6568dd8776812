/**
 * `attempts watch --replay-dead-letters`: puts the watch's dead letters (the file and its rotated one) back
 * into the state's pending deliveries, then tries them once as a watch's first round does; what fails stays
 * pending for the next watch, or is dead-lettered again (a new line) after --give-up-after. Each letter put back
 * is marked in the state (its attempt id and when it was given up) in the same journal line that queues it,
 * so a rerun never puts it back twice; the letters stay in the file. A destination stopped by a 410 Gone that
 * the letters go to again is resumed.
 */
import { readFileSync } from "node:fs";
import type { TestAttempt } from "../../api/schemas.js";
import type { Context } from "../../context.js";
import { CliError } from "../../errors.js";
import { isRecord } from "../../fields.js";
import { toServiceTime } from "../../parse/dates.js";
import { jsonOrUndefined } from "../../parse/json.js";
import { type Deliverer, deliverPending } from "./watch-deliver.js";
import {
  deadLetterPath,
  loadWatchState,
  type PendingDelivery,
  rotatedDeadLetterPath,
  WatchStore,
} from "./watch-state.js";

interface Letter {
  key: string;
  givenUpAt: number;
  attempt: TestAttempt;
  /** With --rules: what was to be done (./watch-rules.ts), and the report it was decided on. */
  action?: string;
  report?: Record<string, unknown>;
}

/** An attempt's delivery, and with --rules which of its actions: one of each is pending at a time. */
const deliveryOf = (attempt: TestAttempt, action: string | undefined) =>
  `${attempt.testInvitationId}${action === undefined ? "" : ` ${action}`}`;

export async function replayDeadLetters(
  ctx: Context,
  path: string,
  deliverer: Deliverer,
  o: { sinceMs?: number; giveUpAfterMs: number; intervalMs: number },
): Promise<number> {
  const file = deadLetterPath(path);
  const saved = loadWatchState(path);
  const letters = saved ? [...readLetters(rotatedDeadLetterPath(file)), ...readLetters(file)] : [];
  const marked = new Set(saved?.replayed ?? []);
  const cutoff = o.sinceMs === undefined ? undefined : Date.now() - o.sinceMs;
  const pending = new Set((saved?.pending ?? []).map((entry) => deliveryOf(entry.attempt, entry.action)));
  // The newest unmarked letter of each attempt; an attempt pending already is not queued twice.
  const chosen = new Map<string, Letter>();
  let beforeSince = 0;
  for (const letter of letters) {
    if (marked.has(letter.key)) continue;
    if (cutoff !== undefined && letter.givenUpAt < cutoff) beforeSince++;
    else chosen.set(letter.key, letter);
  }
  const since = toServiceTime(new Date());
  const queued = new Map<string, PendingDelivery>();
  for (const { attempt, action, report } of chosen.values()) {
    const id = deliveryOf(attempt, action);
    if (!pending.has(id))
      queued.set(id, { attempt, since, tries: 0, ...(action === undefined ? {} : { action, report }) });
  }
  const summary = {
    file,
    replayed: queued.size,
    alreadyReplayed: letters.filter((letter) => marked.has(letter.key)).length,
    beforeSince,
    delivered: 0,
    deadLettered: 0,
    pending: 0,
  };
  if (saved && ctx.dryRun) {
    ctx.info(`[dry-run] would replay ${letters_(queued.size)} of ${file} to ${deliverer.name}`);
  } else if (saved && (chosen.size > 0 || saved.stopped?.[deliverer.id] !== undefined)) {
    const store = new WatchStore(path, saved, true, false);
    // Marked in the line that queues them: a crash after it delivers them on the next run, never twice. Only
    // the letters still in the files stay marked (the rotation drops the others).
    const present = new Set(letters.map((letter) => letter.key));
    store.record({
      op: "replayed",
      replayed: [...new Set([...marked].filter((key) => present.has(key)).concat([...chosen.keys()]))],
      queued: [...queued.values()],
      resume: deliverer.id,
    });
    ctx.info(`Replaying ${letters_(queued.size)} of ${file} to ${deliverer.name}.`);
    const round = await deliverPending(ctx, deliverer, store, {
      all: true,
      giveUpAfterMs: o.giveUpAfterMs,
      intervalMs: o.intervalMs,
    });
    summary.delivered = round.delivered;
    summary.deadLettered = round.deadLettered;
    summary.pending = store.state.pending?.length ?? 0;
  }
  const left = [
    summary.alreadyReplayed > 0 ? `${letters_(summary.alreadyReplayed)} replayed before` : "",
    beforeSince > 0 ? `${letters_(beforeSince)} given up before --since` : "",
  ].filter(Boolean);
  ctx.info(
    `Replayed ${letters_(summary.replayed)}: ${summary.delivered} delivered, ${summary.pending} pending (the next watch tries again), ${summary.deadLettered} dead-lettered again` +
      (left.length > 0 ? `; left alone: ${left.join(", ")}` : ""),
  );
  if (ctx.out.isJson) ctx.out.json(summary);
  if (ctx.signal.aborted) return 130;
  return summary.pending > 0 || summary.deadLettered > 0 ? 1 : 0;
}

function letters_(n: number): string {
  return `${n} dead letter${n === 1 ? "" : "s"}`;
}

/** The letters of a dead-letter file, in its order; a line that is no letter (cut by a crash) is skipped. */
function readLetters(file: string): Letter[] {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    if ((error as { code?: string }).code === "ENOENT") return [];
    throw new CliError(`Cannot read the dead-letter file ${file}: ${(error as Error).message}`);
  }
  const letters: Letter[] = [];
  for (const line of text.split("\n")) {
    const value = jsonOrUndefined(line);
    if (!isRecord(value) || !isRecord(value.attempt) || typeof value.givenUpAt !== "string") continue;
    const givenUpAt = Date.parse(value.givenUpAt);
    if (Number.isNaN(givenUpAt)) continue;
    const attempt = value.attempt as TestAttempt;
    const action = typeof value.action === "string" ? value.action : undefined;
    const report = isRecord(value.report) ? value.report : undefined;
    letters.push({
      key: `${deliveryOf(attempt, action)}@${value.givenUpAt}`,
      givenUpAt,
      attempt,
      action,
      report,
    });
  }
  return letters;
}
