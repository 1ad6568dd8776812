/**
 * `employees sync <file>`: lists the service's employees (every page), plans (bulk/plan/sync.ts), shows the
 * plan, asks, then upserts only the new and changed rows and, with --prune, sets the active employees absent
 * from the file Inactive. `--plan` (and `--dry-run`) make the reads and send nothing.
 */

import { paginate } from "../../api/pager.js";
import { type BulkResult, bulkExitCode } from "../../bulk/engine/summary.js";
import type { BulkEntry, BulkRow, InvalidRow } from "../../bulk/engine/types.js";
import { planSync, pruneLimit, type ServiceRecordRef, type SyncPlan } from "../../bulk/plan/sync.js";
import type { Employee } from "../../bulk/rows/employees.js";
import type { Context } from "../../context.js";
import { mapOrdered } from "../../core/map-ordered.js";
import { ApiError, AuthError, CliError, ExitCode, NetworkError, UsageError } from "../../errors.js";
import { field } from "../../fields.js";
import { serviceId } from "../../identity.js";
import { SHOWN_ROWS } from "../../output/format.js";
import { formatCount } from "../../output/progress.js";
import type { Client } from "../../sdk/client.js";
import { runReported } from "../shared/bulk-run.js";
import { arg, flag } from "../shared/flags.js";
import { confirmOrYes } from "../shared/options.js";
import { type OptionsOf, verb } from "../shared/verb.js";
import { type EmployeeInput, fileFlags, upsertJob, upsertWording, withEmployees } from "./input.js";

const flags = {
  plan: flag.bool("list the service's employees and print the plan; send nothing"),
  prune: flag.bool(
    "deactivate (status Inactive) active employees the file does not name (by e-mail or external id, in any row, valid or not); an active one the service gives no usable employeeId stops the run (exit 1)",
  ),
  maxPrune: flag.int(
    0,
    1_000_000,
    "deactivate up to n employees (without it, a prune of more than 10 % of the active ones is refused)",
  ),
  yes: flag.bool("apply without asking (needed without a terminal)"),
  ...fileFlags(),
};
type Options = OptionsOf<typeof flags>;

export default verb({
  summary:
    "Make the service's employees what a file says: plan (new, changed, unchanged, absent), then upsert only what differs",
  args: [arg.text("<file>", "the whole HR export: CSV, .xlsx or a JSON array, as `employees upsert` takes")],
  flags,
  examples: [
    "assess employees sync staff.csv --prune --plan         # what would change; nothing sent",
    "assess employees sync staff.csv --prune --plan --json  # the plan by class",
    "assess employees sync staff.csv --prune --yes          # upsert new and changed, deactivate departed",
    "assess employees sync staff.csv --prune --max-prune 40 --yes",
  ],
  run,
});

const CONCURRENCY = 4; // deactivations, and pages of the employee list, in flight at once
const PAGE_SIZE = 100; // employees per page of the list: the most the skills API serves

async function run(ctx: Context, o: Options, [file]: [string]) {
  return withEmployees(ctx, file, o, (input) => sync(ctx, o, input));
}

async function sync(ctx: Context, o: Options, input: EmployeeInput): Promise<number> {
  // The file, checked as upsert checks it, held in memory: the plan compares every row.
  const rows: BulkRow<Employee>[] = [];
  const invalid: InvalidRow[] = [];
  for await (const batch of input.rows.read()) {
    for (const entry of batch) {
      if (entry.invalid) invalid.push(entry.invalid);
      else rows.push(entry.row);
    }
  }
  if (rows.length + invalid.length === 0)
    throw new UsageError(
      input.noRows,
      "The first row names the columns; each following row is one employee.",
    );

  const items = rows.map((row) => ({ line: row.line, item: JSON.parse(row.json) as Employee }));
  const previewing = o.plan === true || ctx.dryRun;
  // Invalid rows, and rows of one e-mail that conflict (whatever the service holds): a plan lists them; a run
  // refuses them before it reads anything, its conflicts found by planning against no employees.
  const invalidWith = (conflict: SyncPlan["conflict"]) =>
    [
      ...invalid.map(({ line, label, error }) => ({ line, email: label ?? "", error })),
      ...conflict.map(({ line, email, error }) => ({ line, email, error })),
    ].sort((a, b) => a.line - b.line);
  const refused = previewing || o.skipInvalid ? [] : invalidWith(planSync(items, []).conflict);
  const total = rows.length + invalid.length;
  const refuse = (refused: Array<{ line: number; error: string }>, what: string, suggestion: string) => {
    const listed = refused.slice(0, SHOWN_ROWS).map((row) => `${input.locate(row.line)}: ${row.error}`);
    if (refused.length > SHOWN_ROWS) listed.push(`… and ${refused.length - SHOWN_ROWS} more`);
    const rowsAre = `${refused.length} of ${total} rows ${refused.length === 1 ? "is" : "are"}`;
    return new UsageError(
      `${rowsAre} ${what}; nothing was sent:\n  ${listed.join("\n  ")}`,
      suggestion,
      listed,
    );
  };
  if (refused.length > 0)
    throw refuse(
      refused,
      "invalid",
      "Fix the rows, or pass --skip-invalid to sync the valid ones and write the others to a rejects file.",
    );
  const client = await ctx.client();
  ctx.planWithReads("Reading the service's employees to plan the sync");
  ctx.info(
    `Listing the service's employees to plan the sync (reads only${previewing ? "; nothing will be sent" : ""})`,
  );
  const service = await listEveryEmployee(ctx, client);
  const plan = planSync(items, service, {
    prune: o.prune === true,
    keep: invalid.map((row) => ({ email: row.label, externalEmployeeId: row.externalId })),
  });
  const invalidRows = invalidWith(plan.conflict);
  const limit = pruneLimit(plan.active, o.maxPrune);
  const classes = {
    new: plan.new,
    changed: plan.changed,
    unchanged: plan.unchanged,
    repeat: plan.repeat,
    invalid: invalidRows,
    prune: plan.prune,
    unprunable: plan.unprunable,
  };
  const sizes = Object.fromEntries(Object.entries(classes).map(([name, list]) => [name, list.length]));
  const planJson = {
    file: input.inputName,
    counts: { rows: total, ...sizes, active: plan.active, listed: service.length },
    pruneLimit: limit,
    ...classes,
    unidentified: plan.unidentified,
  };
  const toSend = plan.new.length + plan.changed.length;
  const overCap = plan.prune.length > limit;
  const capError = () =>
    new UsageError(
      `--prune would deactivate ${plan.prune.length} of ${plan.active} active employees, more than ${
        o.maxPrune === undefined ? `10 % (${limit})` : `--max-prune ${limit}`
      }; nothing was sent`,
      `Check that ${input.inputName} is the whole export; if it is, pass --max-prune ${plan.prune.length}.`,
    );

  // Active employees absent from the file that have no usable id: a prune can neither deactivate them nor
  // leave them be as if the service matched the file.
  const unprunable = () => {
    const n = plan.unprunable.length;
    const listed = plan.unprunable.slice(0, SHOWN_ROWS).map(named);
    if (n > SHOWN_ROWS) listed.push(`… and ${n - SHOWN_ROWS} more`);
    return new CliError(
      `--prune cannot deactivate ${n} active employee${n === 1 ? "" : "s"} absent from ${input.inputName}: the service gave no usable employeeId; nothing was sent:\n  ${listed.join("\n  ")}`,
      {
        suggestion:
          "`assess employees list --all --json` shows what the service answers for them; without --prune the file's rows are synced and nobody is deactivated.",
        messages: listed,
      },
    );
  };

  if (previewing || !ctx.out.isJson) await printPlan(ctx, plan, planJson);
  const counts = [
    `${formatCount(plan.new.length)} new`,
    `${formatCount(plan.changed.length)} changed`,
    `${formatCount(plan.unchanged.length)} unchanged`,
    plan.repeat.length > 0 ? `${formatCount(plan.repeat.length)} repeated` : undefined,
    invalidRows.length > 0 ? `${formatCount(invalidRows.length)} invalid` : undefined,
    `${formatCount(plan.prune.length)} to deactivate (of ${formatCount(plan.active)} active)`,
  ];
  ctx.info(`Plan: ${counts.filter(Boolean).join(", ")}`);
  // (A run without --skip-invalid names them in its refusal below.)
  if (previewing || o.skipInvalid)
    for (const row of invalidRows.slice(0, SHOWN_ROWS)) ctx.warn(`${input.locate(row.line)}: ${row.error}`);
  warnUnidentified(ctx, plan.unidentified);
  if (previewing) {
    if (plan.unprunable.length > 0)
      ctx.warn(unprunable().message.replace("; nothing was sent", ": a run would stop"));
    if (overCap) ctx.warn(capError().message.replace("; nothing was sent", ": a run would refuse it"));
    ctx.info(
      `${ctx.dryRun ? "[dry-run] " : ""}would upsert ${formatCount(toSend)} and deactivate ${formatCount(plan.prune.length)}; nothing was sent`,
    );
    return ExitCode.ok;
  }
  // Rows two of the service's employees answer to (the file's own conflicts were refused above): as invalid
  // rows, refused unless --skip-invalid.
  if (plan.conflict.length > 0 && !o.skipInvalid)
    throw refuse(
      plan.conflict,
      "ambiguous (more than one of the service's employees answers to the row)",
      "Make each employee's e-mail and externalEmployeeId unique on the service, or pass --skip-invalid to sync the other rows.",
    );
  if (plan.unprunable.length > 0) throw unprunable();
  if (overCap) throw capError();
  if (toSend === 0 && plan.prune.length === 0 && invalidRows.length === 0) {
    if (ctx.out.isJson) ctx.out.json({ ...planJson, upsert: null, deactivated: [], deactivateFailed: [] });
    ctx.success(`The service already matches ${input.inputName}: nothing was sent`);
    return ExitCode.ok;
  }
  const question = [
    toSend > 0 ? `upsert ${formatCount(toSend)} employee${toSend === 1 ? "" : "s"}` : undefined,
    plan.prune.length > 0 ? `deactivate ${formatCount(plan.prune.length)}` : undefined,
  ]
    .filter(Boolean)
    .join(" and ");
  if (question) await confirmOrYes(ctx, o.yes, `${question.charAt(0).toUpperCase()}${question.slice(1)}?`);

  const upsert =
    toSend + invalidRows.length > 0 ? await upsertPlanned(ctx, o, input, rows, invalid, plan) : null;
  // Deactivations wait for the upserts: a changed e-mail or id is then on the service before anyone goes.
  // An interrupted run deactivates nobody (a rerun plans again).
  const deactivated: number[] = [];
  const deactivateFailed: Array<{ employeeId: number; email: string; error: string }> = [];
  const pruning = upsert?.interrupted || ctx.signal.aborted ? [] : plan.prune;
  const outcomes = mapOrdered(pruning, CONCURRENCY, async (employee) => {
    if (ctx.signal.aborted) return { employee, error: "not sent: interrupted" };
    try {
      await client.employees.setStatus(employee.employeeId, { status: "Inactive" });
      return { employee };
    } catch (error) {
      if (error instanceof AuthError || error instanceof NetworkError) throw error;
      if (error instanceof ApiError && (error.status === 401 || error.status === 403)) throw error;
      return { employee, error: error instanceof Error ? error.message : String(error) };
    }
  });
  for await (const { employee, error } of outcomes) {
    if (error === undefined) deactivated.push(employee.employeeId);
    else deactivateFailed.push({ employeeId: employee.employeeId, email: employee.email, error });
  }
  if (deactivated.length > 0)
    ctx.success(
      `Deactivated ${formatCount(deactivated.length)} employee${deactivated.length === 1 ? "" : "s"} absent from ${input.inputName}`,
    );
  for (const failure of deactivateFailed.slice(0, SHOWN_ROWS))
    ctx.warn(`could not deactivate employee ${failure.employeeId} (${failure.email}): ${failure.error}`);

  const code = ctx.signal.aborted
    ? ExitCode.interrupted
    : upsert && bulkExitCode(upsert) !== ExitCode.ok
      ? bulkExitCode(upsert)
      : deactivateFailed.length > 0
        ? ExitCode.partial
        : ExitCode.ok;
  if (ctx.out.isJson || code === ExitCode.partial)
    ctx.out.json({ ...planJson, upsert, deactivated, deactivateFailed });
  if (deactivateFailed.length > 0)
    ctx.warn("Run the same command again to retry: employees already synced are not sent again.");
  return code;
}

/**
 * Every employee of the service, through the one pager (api/pager.ts): with a total announced, pages a few at
 * once. Pages read while employees are added can overlap: an employee is kept once (by its id).
 */
async function listEveryEmployee(ctx: Context, client: Client): Promise<Record<string, unknown>[]> {
  const byId = new Map<unknown, Record<string, unknown>>();
  // A record without a usable id (planSync names it) is kept once by its whole content.
  const add = (items: Record<string, unknown>[]) => {
    for (const item of items) byId.set(serviceId(field(item, "employeeId")) ?? JSON.stringify(item), item);
  };
  const fetchPage = (page: number) => client.employees.list({ page, pageSize: PAGE_SIZE });
  const warn = (message: string) => ctx.warn(message);
  for await (const items of paginate(fetchPage, { concurrency: CONCURRENCY, warn })) add(items);
  return [...byId.values()];
}

/** `a@example.com (externalEmployeeId E-1, employeeId "007")`. */
function named(ref: ServiceRecordRef): string {
  const id = ref.employeeId === undefined ? "no employeeId" : `employeeId ${JSON.stringify(ref.employeeId)}`;
  const external = ref.externalEmployeeId ? `externalEmployeeId ${ref.externalEmployeeId}, ` : "";
  return `${ref.email || "(no e-mail)"} (${external}${id})`;
}

/** The service's employees whose id was refused: said once, the first few named. */
function warnUnidentified(ctx: Context, refs: ServiceRecordRef[]): void {
  if (refs.length === 0) return;
  const n = refs.length;
  ctx.warn(
    `${formatCount(n)} of the service's employees ${n === 1 ? "has" : "have"} no usable employeeId (a positive whole number): ${n === 1 ? "it is" : "they are"} matched by e-mail and external id only, never deactivated`,
  );
  for (const ref of refs.slice(0, SHOWN_ROWS)) ctx.info(`  ${named(ref)}`);
  if (n > SHOWN_ROWS) ctx.info(`  … and ${formatCount(n - SHOWN_ROWS)} more (see --plan --json)`);
}

/** New and changed rows (and the invalid ones, for the rejects file) through the bulk engine. */
async function upsertPlanned(
  ctx: Context,
  o: Options,
  input: EmployeeInput,
  rows: BulkRow<Employee>[],
  invalid: InvalidRow[],
  plan: SyncPlan,
): Promise<BulkResult> {
  const byLine = new Map(rows.map((row) => [row.line, row]));
  const entries: BulkEntry<Employee>[] = invalid.map((row) => ({ invalid: row }));
  for (const { line, error, email } of plan.conflict)
    entries.push({ invalid: { line, error, label: email, source: byLine.get(line)?.source } });
  for (const planned of [...plan.new, ...plan.changed]) {
    const row = byLine.get(planned.line)!;
    // The ledger knows a row by its content and the service's record it was planned against: after a crash
    // a confirmed row is skipped, and one the service has changed since is sent again.
    entries.push({
      row: { ...row, key: `${row.key}\n${plan.observed.get(row.line) ?? ""}`, dedupeKey: undefined },
    });
  }
  entries.sort((a, b) => (a.row ?? a.invalid!).line - (b.row ?? b.invalid!).line);
  const job = await upsertJob(ctx, o, input, "sync");
  return runReported<Employee>(
    ctx,
    {
      ...job,
      skipInvalid: true,
      read: () => [entries],
    },
    { ...upsertWording(input), json: "never" },
  );
}

/** The rows that would change something: on stdout, a table or (--json) the whole plan. */
async function printPlan(ctx: Context, plan: SyncPlan, planJson: Record<string, unknown>): Promise<void> {
  if (ctx.out.isJson) {
    ctx.out.json(planJson);
    return;
  }
  const listed = [
    ...plan.new.map((row) => ({ action: "new", ...row, fields: "" })),
    ...plan.changed.map((row) => ({ action: "changed", ...row, fields: row.fields.join(", ") })),
    ...plan.prune.map((row) => ({ action: "deactivate", line: "", ...row, fields: "status" })),
  ];
  if (listed.length === 0) return;
  await ctx.out.list(listed, [
    { key: "action", header: "ACTION" },
    { key: "line", header: "LINE" },
    { key: "email", header: "EMAIL" },
    { key: "employeeId", header: "EMPLOYEE ID" },
    { key: "externalEmployeeId", header: "EXTERNAL ID" },
    { key: "fields", header: "FIELDS" },
  ]);
}
