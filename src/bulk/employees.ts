/**
 * Rows → employee upsert items (API.md §2.11), from a CSV file or a JSON array. CSV columns are the field
 * names of §2.11 without the `employeeHRMSInfo.` prefix (matched case-insensitively, ignoring spaces, `_`
 * and `-`); any other column becomes an entry of `customFieldWithValue`. The `error` column that a rejects
 * file adds is ignored, so a fixed rejects file can be fed back in as it is.
 */
import type { z } from "zod";
import { EmployeeUpsertItem } from "../api/schemas.js";
import { parseDate, toServiceTime } from "../commands/shared/dates.js";
import { UsageError } from "../errors.js";
import { normalizeHeader } from "./columns.js";
import type { CsvInput } from "./csv.js";
import type { BulkEntry } from "./engine.js";
import { extraFields } from "./invites.js";
import { jsonArrayBatches } from "./json-array.js";

export type Employee = z.infer<typeof EmployeeUpsertItem>;

const TOP_FIELDS = ["email", "firstName", "lastName", "jobCode"] as const;
const HRMS_FIELDS = [
  "externalEmployeeId",
  "department",
  "location",
  "managerEmail",
  "hireDate",
  "exitDate",
  "employmentType",
  "grade",
  "band",
] as const;
const DATE_FIELDS = new Set(["hireDate", "exitDate"]);
/** Added by rejects files; never sent. */
export const ERROR_COLUMN = "error";

type Target =
  | { kind: "top"; field: string }
  | { kind: "hrms"; field: string }
  | { kind: "custom"; field: string };

export interface EmployeeColumns {
  targets: Array<Target | undefined>;
}

/** Maps each header cell to a field of §2.11, a custom field, or nothing (the rejects `error` column, blank names). */
export function employeeColumns(input: CsvInput): EmployeeColumns {
  const known = new Map<string, Target>();
  for (const field of TOP_FIELDS) known.set(normalizeHeader(field), { kind: "top", field });
  for (const field of HRMS_FIELDS) known.set(normalizeHeader(field), { kind: "hrms", field });
  const used = new Map<string, number>();
  const targets = input.header.map((cell, index): Target | undefined => {
    let key = normalizeHeader(cell);
    if (key === "" || key === ERROR_COLUMN) return undefined;
    if (key.startsWith("employeehrmsinfo.")) key = key.slice("employeehrmsinfo.".length);
    if (key.startsWith("customfieldwithvalue."))
      return { kind: "custom", field: cell.trim().slice("customFieldWithValue.".length) };
    const target = known.get(key) ?? { kind: "custom", field: cell.trim() };
    const id = `${target.kind}:${target.kind === "custom" ? target.field : key}`;
    const earlier = used.get(id);
    if (earlier !== undefined) {
      throw new UsageError(
        `${input.name}:${input.headerLine}: columns ${earlier + 1} ("${input.header[earlier]}") and ${index + 1} ("${cell}") are both ${target.field}`,
        "Rename or remove one of them.",
      );
    }
    used.set(id, index);
    return target;
  });
  if (!targets.some((t) => t?.kind === "top" && t.field === "email")) {
    throw new UsageError(
      `${input.name}:${input.headerLine}: the header has no email column`,
      "Employee files need an email column; the other columns are the fields of an employee (firstName, jobCode, externalEmployeeId, department, ...).",
    );
  }
  return { targets };
}

export function employeeCsvEntries(
  input: CsvInput,
  columns: EmployeeColumns,
): (checkOnly: boolean) => AsyncIterable<BulkEntry<Employee>[]> {
  const width = input.header.length;
  return async function* entries(checkOnly: boolean) {
    for await (const batch of input.batches()) {
      yield batch.map(({ line, fields }) => {
        const extra = extraFields(fields, width);
        const item = fromCsv(fields, columns);
        return toEntry(line, item.item, fields, [...(extra ? [extra] : []), ...item.problems], checkOnly);
      });
    }
  };
}

function fromCsv(
  fields: string[],
  columns: EmployeeColumns,
): { item: Record<string, unknown>; problems: string[] } {
  const item: Record<string, unknown> = {};
  const hrms: Record<string, unknown> = {};
  const custom: Record<string, string> = {};
  const problems: string[] = [];
  columns.targets.forEach((target, index) => {
    if (!target) return;
    const value = (fields[index] ?? "").trim();
    if (value === "") return;
    if (target.kind === "top") item[target.field] = value;
    else if (target.kind === "custom") custom[target.field] = value;
    else hrms[target.field] = value;
  });
  if (Object.keys(custom).length > 0) hrms.customFieldWithValue = custom;
  if (Object.keys(hrms).length > 0) item.employeeHRMSInfo = hrms;
  return { item, problems };
}

/** Items of a JSON array file; an `error` property (from a rejects file) is dropped. */
export function employeeJsonEntries(
  path: string,
  name: string,
): (checkOnly: boolean) => AsyncIterable<BulkEntry<Employee>[]> {
  return async function* entries(checkOnly: boolean) {
    for await (const batch of jsonArrayBatches(path, name)) {
      yield batch.map((element): BulkEntry<Employee> => {
        if (element.error)
          return { invalid: { line: element.line, error: element.error, source: undefined } };
        const value = element.value;
        if (typeof value !== "object" || value === null || Array.isArray(value)) {
          return {
            invalid: { line: element.line, error: "an employee must be a JSON object", source: value },
          };
        }
        const { [ERROR_COLUMN]: _ignored, ...item } = value as Record<string, unknown>;
        return toEntry(element.line, item, value, [], checkOnly);
      });
    }
  };
}

/**
 * Normalises dates, validates with the §2.11 schema, and keys the row by its content (reruns skip unchanged rows);
 * the validate-first pass (`checkOnly`) does without the key, which costs as much as the check.
 */
function toEntry(
  line: number,
  raw: Record<string, unknown>,
  source: unknown,
  problems: string[],
  checkOnly: boolean,
): BulkEntry<Employee> {
  const hrms = raw.employeeHRMSInfo;
  if (hrms && typeof hrms === "object" && !Array.isArray(hrms)) {
    const info = { ...(hrms as Record<string, unknown>) };
    for (const field of DATE_FIELDS) {
      const value = info[field];
      if (typeof value !== "string") continue;
      const date = toDateTime(value);
      if (date) info[field] = date;
      else problems.push(`${field}: "${value}" is not a date (use YYYY-MM-DD or ISO 8601)`);
    }
    raw = { ...raw, employeeHRMSInfo: info };
  }
  const email = typeof raw.email === "string" ? raw.email : "";
  const parsed = EmployeeUpsertItem.safeParse(raw);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const path = issue.path
        .map(String)
        .join(".")
        .replace(/^employeeHRMSInfo\./, "");
      if (path === "email")
        problems.push(`email: ${email === "" ? "empty" : `"${email}" is not a valid e-mail address`}`);
      else if (issue.code === "unrecognized_keys")
        problems.push(`unknown field${issue.keys.length > 1 ? "s" : ""}: ${issue.keys.join(", ")}`);
      else if (!DATE_FIELDS.has(path)) problems.push(`${path || "item"}: ${issue.message}`);
    }
  }
  if (problems.length > 0 || !parsed.success) {
    return { invalid: { line, error: problems.join("; ") || "invalid employee", label: email, source } };
  }
  const item = parsed.data;
  return {
    row: {
      line,
      group: "",
      key: checkOnly ? "" : contentKey(item),
      dedupeKey: item.email.toLowerCase(),
      label: item.email,
      payload: item,
      source,
    },
  };
}

/**
 * A date in a file: `YYYY-MM-DD` (midnight UTC) or ISO 8601, read as CLI.md reads dates (the relative forms of
 * flags, `now` and `7d`, mean nothing in a file) → `YYYY-MM-DDTHH:mm:ssZ`; undefined when not a date.
 */
export function toDateTime(value: string): string | undefined {
  if (!/^\d{4}-\d{2}-\d{2}/.test(value.trim())) return undefined;
  try {
    return toServiceTime(parseDate(value, "start", "date"));
  } catch {
    return undefined;
  }
}

/**
 * A row's ledger key: the employee as JSON. zod writes an object's fields in the schema's order, whatever order
 * the file gave them in, and custom fields are put in order of name here, so the same employee written in
 * another order is the same row. (JSON.stringify is native: a hand-written canonical form took ~1.5 s more a
 * million rows.)
 */
export function contentKey(item: Employee): string {
  const hrms = item.employeeHRMSInfo;
  const custom = hrms?.customFieldWithValue;
  if (!custom) return JSON.stringify(item);
  const names = Object.keys(custom);
  if (names.every((name, i) => i === 0 || names[i - 1]! <= name)) return JSON.stringify(item);
  const sorted: Record<string, string> = {};
  for (const name of names.sort()) sorted[name] = custom[name]!;
  return JSON.stringify({ ...item, employeeHRMSInfo: { ...hrms, customFieldWithValue: sorted } });
}
