/**
 * Employee sync, planned: the file's employees (checked upsert items) against the service's (every page of
 * the list), matched on externalEmployeeId, then e-mail, as the service's upsert matches, each compared as
 * src/identity.ts keys it (a trailing space, a zero-width character or another case is the same person).
 * Each file row is new, changed (naming the fields that differ), unchanged, a repeat of an earlier row, or in
 * conflict with one or with the service (two of its employees answer to the row's id or e-mail: neither is
 * changed); with `prune`, active employees no row names (by e-mail or external id, valid row or not) are to be
 * deactivated, by their employeeId, which must be plainly an id (src/identity.ts): a record without one is never
 * patched, and an active one a prune would have to deactivate is listed in `unprunable` (the run stops).
 *
 * A field the row does not carry (an empty cell) is not compared: the upsert leaves it as it is. Pure: no
 * requests, no files, usable by any caller (the CLI's `employees sync`, the SDK, an MCP tool).
 */
import { createHash } from "node:crypto";
import type { EmployeeUpsertItem } from "../../api/schemas.js";
import { field, isRecord } from "../../fields.js";
import { emailKey, externalKey, serviceId } from "../../identity.js";

/** A service record as a plan names it: `employeeId` as the service answered it (when it is no id, as it came). */
export interface ServiceRecordRef {
  employeeId: unknown;
  email: string;
  externalEmployeeId?: string;
}

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
  /** Active employees of the service no row names (only with `prune`). */
  prune: Array<{ employeeId: number; email: string; externalEmployeeId?: string }>;
  /** The service's employees whose employeeId is no id (missing, `"007"`, `true`…): never patched. */
  unidentified: ServiceRecordRef[];
  /** Of those, the active ones no row names (only with `prune`): a prune cannot deactivate them, so it stops. */
  unprunable: ServiceRecordRef[];
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
const sameEmail: Same = (mine, theirs) => emailKey(mine) === emailKey(theirs);
const sameExternal: Same = (mine, theirs) => externalKey(mine) === externalKey(theirs);
const trimmed: Same = (mine, theirs) => mine.trim() === (text(theirs) ?? "");
/** Instants compare, not texts: the service may write `2021-04-01T00:00:00` for `2021-04-01T00:00:00Z`. */
const sameInstant: Same = (mine, theirs) => {
  if (typeof theirs !== "string") return false;
  const zoned = (s: string) => (/[zZ]|[+-]\d{2}:?\d{2}$/.test(s) ? s : `${s}Z`);
  return Date.parse(zoned(mine)) === Date.parse(zoned(theirs));
};

/** The fields compared, in the order a change names them: whether the row has it in employeeHRMSInfo, and how. */
const COMPARED: Array<[name: string, inHrms: boolean, same: Same]> = [
  ["email", false, sameEmail],
  ["firstName", false, trimmed],
  ["lastName", false, trimmed],
  ["jobCode", false, caseless],
  ["externalEmployeeId", true, sameExternal],
  ["department", true, trimmed],
  ["location", true, trimmed],
  ["employmentType", true, trimmed],
  ["grade", true, trimmed],
  ["band", true, trimmed],
  ["managerEmail", true, sameEmail],
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

/** Who a file row or a rejected one names: its e-mail and external id, as the file wrote them. */
export interface RowIdentity {
  email?: string;
  externalEmployeeId?: string;
}

/** A record as a plan names it. */
function refOf(record: Record<string, unknown>): ServiceRecordRef {
  const external = text(read(record, "externalEmployeeId"));
  return {
    employeeId: read(record, "employeeId"),
    email: text(read(record, "email")) ?? "",
    ...(external ? { externalEmployeeId: external } : {}),
  };
}

/** `11`, or what the service answered instead of an id (`"007"`, `true`, `no employeeId`). */
function idText(record: Record<string, unknown>): string {
  const raw = read(record, "employeeId");
  const id = serviceId(raw);
  return id !== undefined ? String(id) : raw === undefined ? "no employeeId" : JSON.stringify(raw);
}

/** Pushes `value` to the list under `key` (when there is a key). */
function add<V>(map: Map<string, V[]>, key: string | undefined, value: V): void {
  if (key === undefined) return;
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

/**
 * Plans a sync. `rows` are the file's checked rows in file order; `service`, every employee the service
 * listed; `keep`, who the rows that could not be checked name: their employees are never pruned.
 */
export function planSync(
  rows: Iterable<{ line: number; item: EmployeeUpsertItem }>,
  service: Iterable<Record<string, unknown>>,
  options: { prune?: boolean; keep?: Iterable<RowIdentity> } = {},
): SyncPlan {
  const byExternal = new Map<string, Record<string, unknown>[]>();
  const byEmail = new Map<string, Record<string, unknown>[]>();
  const all = [...service];
  for (const record of all) {
    add(byExternal, externalKey(read(record, "externalEmployeeId")), record);
    add(byEmail, emailKey(read(record, "email")), record);
  }
  const plan: SyncPlan = {
    new: [],
    changed: [],
    unchanged: [],
    repeat: [],
    conflict: [],
    prune: [],
    unidentified: all.filter((record) => serviceId(read(record, "employeeId")) === undefined).map(refOf),
    unprunable: [],
    active: all.filter(isActive).length,
    observed: new Map(),
  };
  const matched = new Set<Record<string, unknown>>();
  // Everyone the file names, valid row or not: never pruned.
  const keptEmails = new Set<string>();
  const keptExternals = new Set<string>();
  const keep = ({ email, externalEmployeeId }: RowIdentity) => {
    const byMail = emailKey(email);
    if (byMail !== undefined) keptEmails.add(byMail);
    const byId = externalKey(externalEmployeeId);
    if (byId !== undefined) keptExternals.add(byId);
  };
  for (const identity of options.keep ?? []) keep(identity);
  // One row per employee: the first row of an e-mail holds it; a later one with the same values repeats it,
  // one with other values conflicts (neither is sent: which one should the service keep?).
  const first = new Map<string, { row: PlannedRow; content: string; at?: PlannedRow[] }>();
  const conflicts = (row: PlannedRow, other: number) =>
    plan.conflict.push({ ...row, error: `conflicts with line ${other}: the same e-mail with other values` });
  for (const { line, item } of rows) {
    const email = emailKey(item.email) ?? "";
    const external = item.employeeHRMSInfo?.externalEmployeeId;
    const content = JSON.stringify({ ...item, email });
    keep({ email, externalEmployeeId: external });
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
    const byId = externalKey(external);
    const byIdMatches = byId !== undefined ? byExternal.get(byId) : undefined;
    const matches = byIdMatches ?? byEmail.get(email) ?? [];
    if (matches.length > 1) {
      // Two of the service's employees answer to this row: changing either could be changing the wrong one.
      const by = byIdMatches ? `externalEmployeeId "${external}"` : "e-mail";
      plan.conflict.push({
        ...row,
        error: `${matches.length} of the service's employees have this ${by} (employeeId ${matches.map(idText).join(", ")}): neither is changed`,
      });
      first.set(email, { row, content });
      continue;
    }
    const record = matches[0];
    if (record) {
      matched.add(record);
      const employeeId = serviceId(read(record, "employeeId"));
      if (employeeId !== undefined) row.employeeId = employeeId;
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
      const email = emailKey(read(record, "email"));
      const external = externalKey(read(record, "externalEmployeeId"));
      if (email !== undefined && keptEmails.has(email)) continue;
      if (external !== undefined && keptExternals.has(external)) continue;
      const ref = refOf(record);
      const employeeId = serviceId(ref.employeeId);
      if (employeeId === undefined) plan.unprunable.push(ref);
      else plan.prune.push({ ...ref, employeeId });
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
