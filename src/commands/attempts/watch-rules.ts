/**
 * `attempts watch --rules`: each finished attempt of a test some rule names is queued as `rules` (read its
 * report and check the rules); that delivery queues, in the same journal line that removes it, one pending
 * delivery per action of each rule that fires, keyed by attempt, rule and action. The actions then go through
 * the watch's at-least-once delivery (./watch-deliver.ts): tried again, dead-lettered after --give-up-after.
 * A crash between the report and an action leaves it pending (done on the next run, once); one in the middle of
 * an action repeats it at most once, with the same key: the shortlist drops a row it holds, the forward carries
 * the same webhook-id, the command gets ASSESS_IDEMPOTENCY_KEY, and the service answers a repeated invitation
 * with the same one.
 */
import type { InviteBody, Report, TestAttempt } from "../../api/schemas.js";
import type { Context } from "../../context.js";
import { type Destination, Forwarder } from "../../core/forward.js";
import { actionKey, actionOf, evaluate, idempotencyKey } from "../../core/rules/evaluate.js";
import { type Action, describeAction, type Rule, type Rules } from "../../core/rules/rule.js";
import { appendShortlistRow } from "../../core/rules/shortlist.js";
import type { Signer } from "../../core/signing.js";
import { scoreOf } from "../../core/stats.js";
import { ApiError, ExitCode, NetworkError } from "../../errors.js";
import { jsonText } from "../../escape.js";
import { field } from "../../fields.js";
import { parseDate, toServiceTime } from "../../parse/dates.js";
import type { Client } from "../../sdk/client.js";
import {
  type Deliverer,
  forwardDeliverer,
  type KeptSecrets,
  type Outcome,
  runCommand,
} from "./watch-deliver.js";
import type { PendingDelivery } from "./watch-state.js";

/** The pending delivery that reads an attempt's report and checks the rules. */
export const CHECK_RULES = "rules";
/** What a rule's command may print on stderr per run; the rest is dropped (and counted). */
const EXEC_OUTPUT_BYTES = 64 * 1024;

export function rulesDeliverer(
  client: Client,
  rules: Rules,
  o: { signer?: Signer; forwardTimeoutMs: number; keep: KeptSecrets },
): Deliverer {
  const forwards = new Map<string, Deliverer>();
  const forwardTo = (key: string, destination: Destination) => {
    let deliverer = forwards.get(key);
    if (!deliverer) {
      const forwarder = new Forwarder(destination, o.signer, o.forwardTimeoutMs);
      deliverer = forwardDeliverer(
        forwarder,
        async (attempt) => (field(attempt, "report") as Record<string, unknown> | undefined) ?? {},
        (entry) => `rule ${entry.action}`,
      );
      forwards.set(key, deliverer);
    }
    return deliverer;
  };
  return {
    name: `--rules ${rules.file}`,
    id: "rules",
    // One action failing holds back no other: each has its own destination.
    stopOnFailure: false,
    describe(entry) {
      if (entry.action === CHECK_RULES || entry.action === undefined) return `--rules (reading the report)`;
      const found = actionOf(rules.rules, entry.action);
      return found
        ? `rule ${found.rule.name}: ${describeAction(found.action)}`
        : `rule action ${entry.action}`;
    },
    async deliver(ctx, entry) {
      if (entry.action === CHECK_RULES || entry.action === undefined) return check(ctx, client, rules, entry);
      const found = actionOf(rules.rules, entry.action);
      if (!found) {
        return {
          delivered: false,
          fatal: true,
          error: `${entry.action} is no longer in ${rules.file} (the rule renamed or removed, or the action moved)`,
        };
      }
      const { rule, action } = found;
      const key = idempotencyKey(entry.attempt, entry.action);
      const record = { ...entry.attempt, rule: rule.name, key, report: entry.report ?? {} };
      switch (action.kind) {
        case "invite":
          return invite(client, action, entry);
        case "forward": {
          const outcome = await forwardTo(entry.action, action.destination).deliver(ctx, {
            ...entry,
            attempt: record as unknown as TestAttempt,
          });
          // A destination gone stops this action's deliveries, not the other rules': each is dead-lettered.
          return outcome.gone ? { delivered: false, fatal: true, error: outcome.error } : outcome;
        }
        case "append":
          return append(action.file, rule, entry, key);
        case "exec":
          return runCommand(ctx, {
            command: action.command,
            keep: o.keep,
            attempt: entry.attempt,
            stdin: jsonText(record),
            env: { ASSESS_RULE: rule.name, ASSESS_IDEMPOTENCY_KEY: key },
            timeoutMs: action.timeoutMs,
            maxOutputBytes: EXEC_OUTPUT_BYTES,
          });
      }
    },
    async close() {
      for (const deliverer of forwards.values()) await deliverer.close?.();
    },
  };
}

/** Reads the attempt's report and queues the actions of each rule it satisfies. */
async function check(ctx: Context, client: Client, rules: Rules, entry: PendingDelivery): Promise<Outcome> {
  const { attempt } = entry;
  let report: Report;
  try {
    report = await client.reports.get(Number(attempt.testInvitationId));
  } catch (error) {
    return failure(error, "its report could not be read");
  }
  const since = toServiceTime(new Date());
  const queued: PendingDelivery[] = [];
  for (const verdict of evaluate(rules.rules, attempt, report)) {
    if (!verdict.fires) continue;
    const { rule } = verdict;
    ctx.info(
      `Attempt ${attempt.testInvitationId}: rule ${rule.name} fires (${rule.actions.map((a) => a.kind).join(", ")})`,
    );
    rule.actions.forEach((_, i) => {
      queued.push({
        attempt,
        since,
        tries: 0,
        action: actionKey(rule, i),
        report: report as Record<string, unknown>,
      });
    });
  }
  return { delivered: true, queued };
}

/** Through the call `invite send` makes; the candidate gets the e-mail unless the rule says `sendEmail: false`. */
async function invite(
  client: Client,
  action: Extract<Action, { kind: "invite" }>,
  entry: PendingDelivery,
): Promise<Outcome> {
  const email = text(entry.attempt.email) ?? text(field(entry.report, "candidateEmail"));
  const name = text(entry.attempt.name) ?? text(field(entry.report, "candidateName")) ?? email;
  if (email === undefined)
    return { delivered: false, fatal: true, error: "the attempt has no e-mail to invite" };
  const body: InviteBody = {
    emailId: email,
    fullName: name!,
    sendEmail: action.sendEmail ? "yes" : "no",
    endDateTime: toServiceTime(parseDate(action.end, "end", "end")),
  };
  if (action.start !== undefined)
    body.startDateTime = toServiceTime(parseDate(action.start, "start", "start"));
  if (action.timezone !== undefined) body.timeZoneId = action.timezone;
  try {
    await client.invitations.create(action.test, body);
    return { delivered: true };
  } catch (error) {
    return failure(error, `invitation to test ${action.test} failed`);
  }
}

function append(file: string, rule: Rule, entry: PendingDelivery, key: string): Outcome {
  const { attempt, report = {} } = entry;
  try {
    appendShortlistRow(file, {
      rule: rule.name,
      testInvitationId: attempt.testInvitationId,
      testId: attempt.testId,
      testName: field(report, "testName"),
      name: attempt.name ?? field(report, "candidateName"),
      email: attempt.email ?? field(report, "candidateEmail"),
      status: field(report, "Status") ?? field(attempt, "testStatus"),
      score: scoreOf(report as Report),
      appendedAt: toServiceTime(new Date()),
      key,
    });
    return { delivered: true };
  } catch (error) {
    return { delivered: false, error: `cannot append to ${file}: ${(error as Error).message}` };
  }
}

/**
 * A call that failed: a bad key or permission stops the watch (exit 4, as a poll would); a refusal that trying
 * again cannot change (a 4xx other than 408 and 429) is dead-lettered at once; the rest are tried again.
 */
function failure(error: unknown, what: string): Outcome {
  const exitCode = (error as { exitCode?: number }).exitCode;
  if (exitCode === ExitCode.auth) throw error;
  const message = `${what}: ${(error as Error).message}`;
  // Refused before it was sent (an e-mail the request's schema refuses): it never will be.
  if (exitCode === ExitCode.usage) return { delivered: false, fatal: true, error: message };
  if (error instanceof ApiError) {
    const status = error.status ?? 0;
    const fatal = status >= 400 && status < 500 && status !== 408 && status !== 429;
    return { delivered: false, fatal, error: message };
  }
  if (error instanceof NetworkError) return { delivered: false, error: message };
  return { delivered: false, error: message };
}

function text(value: unknown): string | undefined {
  return typeof value === "string" && value.trim() !== "" ? value.trim() : undefined;
}
