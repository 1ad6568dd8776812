/**
 * Employee sync, planned: the file's employees (checked upsert items) against the service's (every page of
 * the list), matched on externalEmployeeId, then e-mail (case-insensitive), as the service's upsert matches.
 * Each file row is new, changed (naming the fields that differ), unchanged, a repeat of an earlier row, or in
 * conflict with one; with `prune`, active employees no row matched are to be deactivated.
 *
 * A field the row does not carry (an empty cell) is not compared: the upsert leaves it as it is. Pure: no
 * requests, no files, usable by any caller (the CLI's `employees sync`, the SDK, an MCP tool).
 */
import { createHash } from "node:crypto";
import type { EmployeeUpsertItem } from "../../api/schemas.js";
import { field, isRecord } from "../../fields.js";

/** A checked row of the file. */
export interface SyncRow {
  line: number;
  item: EmployeeUpsertItem;
}

export interface PlannedRow {
  line: number;
  email: string;
  externalEmployeeId?: string;
  /** The service's employee it matched. */
  employeeId?: number;
}

export interface ChangedRow extends PlannedRow {
  /** The fields that differ, as the upsert names them (`department`, `customFieldWithValue.costCenter`). */
  fields: string[];
}

export interface PrunedEmployee {
  employeeId: number;
  email: string;
  externalEmployeeId?: string;
}

export interface SyncPlan {
  new: PlannedRow[];
  changed: ChangedRow[];
  unchanged: PlannedRow[];
  /** Rows that repeat an earlier row of the same employee with the same values: sent once. */
  repeat: PlannedRow[];
  /** Rows of one e-mail with different values: neither is sent. */
  conflict: Array<PlannedRow & { error: string }>;
  /** Active employees of the service no row matched (only with `prune`). */
  prune: PrunedEmployee[];
  /** Active employees on the service. */
  active: number;
  /**
   * A digest of the service's record each new or changed row was planned against, by line: with the row's
   * content it is the row's ledger key, so a rerun after the service changed again sends the row again.
   */
  observed: Map<number, string>;
}

const TEXT = ["firstName", "lastName"] as const;
const HRMS_TEXT = ["department", "location", "employmentType", "grade", "band"] as const;
const DATES = ["hireDate", "exitDate"] as const;

/** A service record's field, at the top level or in `employeeHRMSInfo` (the real list nests HRMS fields). */
function read(record: Record<string, unknown>, name: string): unknown {
  const top = field(record, name);
  if (top !== undefined) return top;
  const hrms = field(record, "employeeHRMSInfo");
  return isRecord(hrms) ? field(hrms, name) : undefined;
}

function text(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  return String(value);
}

/** Instants compare, not texts: the service may write `2021-04-01T00:00:00` for `2021-04-01T00:00:00Z`. */
function sameInstant(a: string, b: unknown): boolean {
  if (typeof b !== "string") return false;
  const zoned = (s: string) => (/[zZ]|[+-]\d{2}:?\d{2}$/.test(s) ? s : `${s}Z`);
  return Date.parse(zoned(a)) === Date.parse(zoned(b));
}

/** The fields of `item` whose values differ from the service's `record`. */
export function changedFields(item: EmployeeUpsertItem, record: Record<string, unknown>): string[] {
  const fields: string[] = [];
  const hrms = item.employeeHRMSInfo ?? {};
  if (item.email.toLowerCase() !== text(read(record, "email"))?.toLowerCase()) fields.push("email");
  for (const name of TEXT) {
    const value = item[name];
    if (value !== undefined && value.trim() !== (text(read(record, name)) ?? "")) fields.push(name);
  }
  if (
    item.jobCode !== undefined &&
    item.jobCode.toLowerCase() !== text(read(record, "jobCode"))?.toLowerCase()
  )
    fields.push("jobCode");
  if (
    hrms.externalEmployeeId !== undefined &&
    hrms.externalEmployeeId !== text(read(record, "externalEmployeeId"))
  )
    fields.push("externalEmployeeId");
  for (const name of HRMS_TEXT) {
    const value = hrms[name];
    if (value !== undefined && value.trim() !== (text(read(record, name)) ?? "")) fields.push(name);
  }
  if (
    hrms.managerEmail !== undefined &&
    hrms.managerEmail.toLowerCase() !== text(read(record, "managerEmail"))?.toLowerCase()
  )
    fields.push("managerEmail");
  for (const name of DATES) {
    const value = hrms[name];
    if (value !== undefined && !sameInstant(value, read(record, name))) fields.push(name);
  }
  const custom = read(record, "customFieldWithValue");
  for (const [name, value] of Object.entries(hrms.customFieldWithValue ?? {})) {
    if (value !== text(isRecord(custom) ? custom[name] : undefined))
      fields.push(`customFieldWithValue.${name}`);
  }
  return fields;
}

function isActive(record: Record<string, unknown>): boolean {
  const status = text(read(record, "status"));
  return status === undefined || status.toLowerCase() === "active";
}

function digest(record: Record<string, unknown> | undefined): string {
  if (!record) return "new";
  return createHash("sha256").update(JSON.stringify(record)).digest("base64url").slice(0, 16);
}

export interface SyncOptions {
  prune?: boolean;
  /** E-mails (lower-cased) of rows that could not be checked: their employees are never pruned. */
  keep?: Iterable<string>;
}

/**
 * Plans a sync. `rows` are the file's checked rows in file order; `service`, every employee the service
 * listed. Memory: the service's employees and the rows' index, by e-mail and external id.
 */
export function planSync(
  rows: Iterable<SyncRow>,
  service: Iterable<Record<string, unknown>>,
  options: SyncOptions = {},
): SyncPlan {
  const byExternal = new Map<string, Record<string, unknown>>();
  const byEmail = new Map<string, Record<string, unknown>>();
  const all: Record<string, unknown>[] = [];
  for (const record of service) {
    all.push(record);
    const external = text(read(record, "externalEmployeeId"));
    if (external) byExternal.set(external, record);
    const email = text(read(record, "email"))?.toLowerCase();
    if (email) byEmail.set(email, record);
  }
  const plan: SyncPlan = {
    new: [],
    changed: [],
    unchanged: [],
    repeat: [],
    conflict: [],
    prune: [],
    active: all.filter(isActive).length,
    observed: new Map(),
  };
  const matched = new Set<Record<string, unknown>>();
  const kept = new Set(options.keep ?? []);
  // One row per employee: the first row of an e-mail holds it; a later one with the same values repeats it,
  // one with other values conflicts (neither is sent: which one should the service keep?).
  const first = new Map<string, { line: number; content: string; at?: PlannedRow[] }>();
  for (const { line, item } of rows) {
    const email = item.email.toLowerCase();
    const external = item.employeeHRMSInfo?.externalEmployeeId;
    const content = JSON.stringify({ ...item, email });
    kept.add(email);
    const earlier = first.get(email);
    if (earlier) {
      const row = { line, email: item.email, ...(external ? { externalEmployeeId: external } : {}) };
      if (earlier.content === content) plan.repeat.push(row);
      else {
        plan.conflict.push({
          ...row,
          error: `conflicts with line ${earlier.line}: the same e-mail with other values`,
        });
        // The first row of the e-mail conflicts too: out of whichever class it was put in.
        if (earlier.at) {
          const i = earlier.at.findIndex((r) => r.line === earlier.line);
          if (i >= 0) {
            const [moved] = earlier.at.splice(i, 1);
            plan.observed.delete(earlier.line);
            plan.conflict.push({
              ...moved!,
              error: `conflicts with line ${line}: the same e-mail with other values`,
            });
          }
          earlier.at = undefined;
        }
      }
      continue;
    }
    const record = (external ? byExternal.get(external) : undefined) ?? byEmail.get(email);
    const row: PlannedRow = {
      line,
      email: item.email,
      ...(external ? { externalEmployeeId: external } : {}),
    };
    let at: PlannedRow[];
    if (!record) {
      at = plan.new;
      plan.new.push(row);
      plan.observed.set(line, digest(undefined));
    } else {
      matched.add(record);
      const employeeId = Number(read(record, "employeeId"));
      if (Number.isFinite(employeeId)) row.employeeId = employeeId;
      const fields = changedFields(item, record);
      if (fields.length === 0) {
        at = plan.unchanged;
        plan.unchanged.push(row);
      } else {
        at = plan.changed;
        plan.changed.push({ ...row, fields });
        plan.observed.set(line, digest(record));
      }
    }
    first.set(email, { line, content, at });
  }
  if (options.prune) {
    for (const record of all) {
      if (matched.has(record) || !isActive(record)) continue;
      const email = text(read(record, "email")) ?? "";
      if (kept.has(email.toLowerCase())) continue;
      const employeeId = Number(read(record, "employeeId"));
      if (!Number.isFinite(employeeId)) continue;
      const external = text(read(record, "externalEmployeeId"));
      plan.prune.push({ employeeId, email, ...(external ? { externalEmployeeId: external } : {}) });
    }
  }
  return plan;
}

/**
 * The most deactivations a sync makes unasked: 10 % of the active employees. More means the file is likely
 * not the whole export (a filtered sheet, a truncated file); `--max-prune <n>` raises it knowingly.
 */
export function pruneLimit(active: number, maxPrune?: number): number {
  return maxPrune ?? Math.floor(active * 0.1);
}
