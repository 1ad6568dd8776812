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

interface PlannedRow {
  line: number;
  email: string;
  externalEmployeeId?: string;
  /** The service's employee it matched. */
  employeeId?: number;
}

export interface SyncPlan {
  new: PlannedRow[];
  /** With the fields that differ, as the upsert names them (`department`, `customFieldWithValue.costCenter`). */
  changed: Array<PlannedRow & { fields: string[] }>;
  unchanged: PlannedRow[];
  /** Rows that repeat an earlier row of the same employee with the same values: sent once. */
  repeat: PlannedRow[];
  /** Rows of one e-mail with different values: neither is sent. */
  conflict: Array<PlannedRow & { error: string }>;
  /** Active employees of the service no row matched (only with `prune`). */
  prune: Array<{ employeeId: number; email: string; externalEmployeeId?: string }>;
  /** Active employees on the service. */
  active: number;
  /**
   * A digest of the service's record each new or changed row was planned against, by line: with the row's
   * content it is the row's ledger key, so a rerun after the service changed again sends the row again.
   */
  observed: Map<number, string>;
}

/** A service record's field, at the top level or in `employeeHRMSInfo` (the real list nests HRMS fields). */
function read(record: Record<string, unknown>, name: string): unknown {
  const top = field(record, name);
  if (top !== undefined) return top;
  const hrms = field(record, "employeeHRMSInfo");
  return isRecord(hrms) ? field(hrms, name) : undefined;
}

function text(value: unknown): string | undefined {
  return value === undefined || value === null ? undefined : String(value);
}

/** Whether a row's value and the service's are the same. */
type Same = (mine: string, theirs: unknown) => boolean;
const caseless: Same = (mine, theirs) => mine.toLowerCase() === text(theirs)?.toLowerCase();
const trimmed: Same = (mine, theirs) => mine.trim() === (text(theirs) ?? "");
const exact: Same = (mine, theirs) => mine === text(theirs);
/** Instants compare, not texts: the service may write `2021-04-01T00:00:00` for `2021-04-01T00:00:00Z`. */
const sameInstant: Same = (mine, theirs) => {
  if (typeof theirs !== "string") return false;
  const zoned = (s: string) => (/[zZ]|[+-]\d{2}:?\d{2}$/.test(s) ? s : `${s}Z`);
  return Date.parse(zoned(mine)) === Date.parse(zoned(theirs));
};

/** The fields compared, in the order a change names them: whether the row has it in employeeHRMSInfo, and how. */
const COMPARED: Array<[name: string, inHrms: boolean, same: Same]> = [
  ["email", false, caseless],
  ["firstName", false, trimmed],
  ["lastName", false, trimmed],
  ["jobCode", false, caseless],
  ["externalEmployeeId", true, exact],
  ["department", true, trimmed],
  ["location", true, trimmed],
  ["employmentType", true, trimmed],
  ["grade", true, trimmed],
  ["band", true, trimmed],
  ["managerEmail", true, caseless],
  ["hireDate", true, sameInstant],
  ["exitDate", true, sameInstant],
];

/** The fields of `item` whose values differ from the service's `record`. */
export function changedFields(item: EmployeeUpsertItem, record: Record<string, unknown>): string[] {
  const hrms = item.employeeHRMSInfo ?? {};
  const fields = COMPARED.filter(([name, inHrms, same]) => {
    const value = ((inHrms ? hrms : item) as Record<string, unknown>)[name];
    return typeof value === "string" && !same(value, read(record, name));
  }).map(([name]) => name);
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

/**
 * Plans a sync. `rows` are the file's checked rows in file order; `service`, every employee the service
 * listed; `keep`, e-mails (lower-cased) of rows that could not be checked: their employees are never pruned.
 */
export function planSync(
  rows: Iterable<{ line: number; item: EmployeeUpsertItem }>,
  service: Iterable<Record<string, unknown>>,
  options: { prune?: boolean; keep?: Iterable<string> } = {},
): SyncPlan {
  const byExternal = new Map<string, Record<string, unknown>>();
  const byEmail = new Map<string, Record<string, unknown>>();
  const all = [...service];
  for (const record of all) {
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
  const first = new Map<string, { row: PlannedRow; content: string; at?: PlannedRow[] }>();
  const conflicts = (row: PlannedRow, other: number) =>
    plan.conflict.push({ ...row, error: `conflicts with line ${other}: the same e-mail with other values` });
  for (const { line, item } of rows) {
    const email = item.email.toLowerCase();
    const external = item.employeeHRMSInfo?.externalEmployeeId;
    const content = JSON.stringify({ ...item, email });
    kept.add(email);
    const row: PlannedRow = {
      line,
      email: item.email,
      ...(external ? { externalEmployeeId: external } : {}),
    };
    const earlier = first.get(email);
    if (earlier) {
      if (earlier.content === content) plan.repeat.push(row);
      else {
        conflicts(row, earlier.row.line);
        // The first row of the e-mail conflicts too: out of whichever class it was put in.
        if (earlier.at) {
          earlier.at.splice(earlier.at.indexOf(earlier.row), 1);
          conflicts(earlier.row, line);
          plan.observed.delete(earlier.row.line);
          earlier.at = undefined;
        }
      }
      continue;
    }
    const record = (external ? byExternal.get(external) : undefined) ?? byEmail.get(email);
    if (record) {
      matched.add(record);
      const employeeId = Number(read(record, "employeeId"));
      if (Number.isFinite(employeeId)) row.employeeId = employeeId;
    }
    const fields = record ? changedFields(item, record) : [];
    const placed = fields.length > 0 ? { ...row, fields } : row;
    const at: PlannedRow[] = !record ? plan.new : fields.length === 0 ? plan.unchanged : plan.changed;
    at.push(placed);
    // New and changed rows are sent: their keys hold what the service had.
    if (at !== plan.unchanged) plan.observed.set(line, digest(record));
    first.set(email, { row: placed, content, at });
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
