/**
 * Rows → employee upsert items, from CSV or a JSON array. CSV columns are the item's field names without the
 * `employeeHRMSInfo.` prefix (found as columns.ts finds them); any other column is a custom field. A rejects
 * file's `error` column is ignored, so a fixed rejects file can be fed back in as it is.
 */
import { toJson } from "../../api/json.js";
import { Email, EmployeeUpsertItem } from "../../api/schemas.js";
import { UsageError } from "../../errors.js";
import { field, isRecord, text } from "../../fields.js";
import { emailKey } from "../../identity.js";
import { parseDate, toServiceTime } from "../../parse/dates.js";
import type { BulkEntry } from "../engine/types.js";
import { columnLabel, extraFields, normalizeHeader, otherSheets, rowPlace } from "./columns.js";
import type { CsvInput } from "./csv.js";
import { jsonArrayBatches } from "./json-array.js";

export type Employee = EmployeeUpsertItem;

const TOP_FIELDS = ["email", "firstName", "lastName", "jobCode"];
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
];
/** The order of an item's fields in its JSON: the schema's. */
const FIELD_ORDER = [...TOP_FIELDS, ...HRMS_FIELDS];
const DATE_FIELDS = new Set(["hireDate", "exitDate"]);
const ERROR_COLUMN = "error";
const EMAIL_MESSAGE = "is not a valid e-mail address";

type Target = { kind: "top" | "hrms" | "custom"; field: string };

export interface EmployeeColumns {
  targets: Array<Target | undefined>;
  /** The columns with a target in the schema's order, custom fields by name: one JSON text per employee. */
  order: number[];
}

/** Maps each header cell to an item field, a custom field, or nothing (the rejects `error` column, blanks). */
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
        `${rowPlace(input, input.headerLine)}: columns ${earlier + 1} ("${input.header[earlier]}") and ${index + 1} ("${cell}") are both ${target.field}`,
        "Rename or remove one of them.",
      );
    }
    used.set(id, index);
    return target;
  });
  if (!targets.some((t) => t?.kind === "top" && t.field === "email")) {
    throw new UsageError(
      `${rowPlace(input, input.headerLine)}: the header has no email column`,
      `Employee files need an email column; the other columns are the fields of an employee (firstName, jobCode, externalEmployeeId, department, ...).${otherSheets(input)}`,
    );
  }
  const rank = (t: Target) => (t.kind === "custom" ? FIELD_ORDER.length : FIELD_ORDER.indexOf(t.field));
  const order = targets
    .flatMap((t, i) => (t ? [i] : []))
    .sort((a, b) => {
      const ta = targets[a]!;
      const tb = targets[b]!;
      return rank(ta) - rank(tb) || (ta.field < tb.field ? -1 : ta.field > tb.field ? 1 : 0);
    });
  return { targets, order };
}

export function employeeCsvEntries(input: CsvInput, columns: EmployeeColumns) {
  const { targets, order } = columns;
  const width = input.header.length;
  const sheet = input.sheet !== undefined;
  // Problems name columns by field in CSV (`hireDate: …`), as the header writes them in a sheet.
  const labels = targets.map((target, index) =>
    sheet ? columnLabel(input, input.header[index] ?? "") : (target?.field ?? ""),
  );
  const labelOf = (kind: Target["kind"], field: string) =>
    labels[targets.findIndex((t) => t?.kind === kind && t.field === field)] ?? field;
  const emailLabel = labelOf("top", "email");
  const managerLabel = labelOf("hrms", "managerEmail");

  // Checked field by field (an object schema per row costs a million rows ~0.5 s), with zod's messages.
  const entry = (line: number, fields: string[]): BulkEntry<Employee> => {
    const extra = extraFields(fields, width, sheet);
    const problems: string[] = extra ? [extra] : [];
    const item: Record<string, unknown> = {};
    let hrms: Record<string, unknown> | undefined;
    let custom: Record<string, string> | undefined;
    for (const index of order) {
      const target = targets[index]!;
      const value = (fields[index] ?? "").trim();
      if (value === "") continue;
      if (target.kind === "top") {
        item[target.field] = value;
      } else if (target.kind === "custom") {
        custom ??= {};
        custom[target.field] = value;
      } else {
        hrms ??= {};
        hrms[target.field] = DATE_FIELDS.has(target.field)
          ? checkedDate(labels[index]!, value, problems)
          : value;
      }
    }
    if (custom) {
      hrms ??= {};
      hrms.customFieldWithValue = custom;
    }
    if (hrms) item.employeeHRMSInfo = hrms;
    const email = typeof item.email === "string" ? item.email : "";
    if (!Email.safeParse(email).success) problems.push(emailProblem(email, emailLabel));
    if (hrms?.managerEmail !== undefined && !Email.safeParse(hrms.managerEmail).success)
      problems.push(`${managerLabel}: ${EMAIL_MESSAGE}`);
    if (problems.length > 0) {
      const externalId = hrms?.externalEmployeeId as string | undefined;
      return { invalid: { line, error: problems.join("; "), label: email, externalId, source: fields } };
    }
    // Taken apart rather than spread: a spread costs ~50 ns a row.
    const { json, key, dedupeKey, label } = employeeRow(item as Employee);
    return { row: { line, group: "", key, dedupeKey, label, json, source: fields } };
  };

  return async function* entries() {
    for await (const batch of input.batches()) yield batch.map(({ line, fields }) => entry(line, fields));
  };
}

/** Items of a JSON array file; an `error` property (from a rejects file) is dropped. */
export function employeeJsonEntries(path: string, name: string): () => AsyncIterable<BulkEntry<Employee>[]> {
  return async function* entries() {
    for await (const batch of jsonArrayBatches(path, name)) {
      yield batch.map(({ line, value, error }): BulkEntry<Employee> => {
        if (error) return { invalid: { line, error, source: undefined } };
        const checked = checkEmployee(isRecord(value) ? withoutError(value) : value);
        if ("invalid" in checked) {
          const { invalid: reason, label } = checked;
          return { invalid: { line, error: reason, label, externalId: externalIdOf(value), source: value } };
        }
        return { row: { line, group: "", ...checked, source: value } };
      });
    }
  };
}

/** The external id an item names, however it is spelled or placed (it may be why the item is invalid). */
function externalIdOf(item: unknown): string | undefined {
  const value =
    field(item, "externalEmployeeId") ?? field(field(item, "employeeHRMSInfo"), "externalEmployeeId");
  return text(value);
}

/** A rejects file's item without its `error`, so that a fixed rejects file can be fed back in as it is. */
function withoutError({ [ERROR_COLUMN]: _error, ...item }: Record<string, unknown>): Record<string, unknown> {
  return item;
}

/**
 * An employee item, of a JSON array file or given to the SDK or `assess mcp` (whose shape is anyone's guess):
 * its dates read as a file's and converted to the service's time, then checked by the item schema.
 */
export function checkEmployee(
  raw: unknown,
): ReturnType<typeof employeeRow> | { invalid: string; label: string } {
  if (!isRecord(raw)) return { invalid: "an employee must be a JSON object", label: "" };
  const problems: string[] = [];
  let item = raw;
  if (isRecord(raw.employeeHRMSInfo)) {
    const info = { ...raw.employeeHRMSInfo };
    for (const field of DATE_FIELDS) {
      const value = info[field];
      if (value !== undefined) info[field] = checkedDate(field, value, problems);
    }
    item = { ...raw, employeeHRMSInfo: info };
  }
  const email = typeof item.email === "string" ? item.email : "";
  const parsed = EmployeeUpsertItem.safeParse(item);
  for (const issue of parsed.error?.issues ?? []) {
    const path = issue.path
      .map(String)
      .join(".")
      .replace(/^employeeHRMSInfo\./, "");
    if (path === "email") problems.push(emailProblem(email));
    else if (issue.code === "unrecognized_keys")
      problems.push(`unknown field${issue.keys.length > 1 ? "s" : ""}: ${issue.keys.join(", ")}`);
    else if (!DATE_FIELDS.has(path)) problems.push(`${path || "item"}: ${issue.message}`);
  }
  if (problems.length > 0 || !parsed.success)
    return { invalid: problems.join("; ") || "invalid employee", label: email };
  return employeeRow(parsed.data);
}

/**
 * A checked employee as the engine takes it, keyed by its content (reruns skip unchanged rows) and deduplicated
 * by its e-mail (rows of one e-mail are sent once when the same, and conflict when not: dedupe.ts). The one key
 * of a file's rows and of `client.employees.upsert`'s.
 */
export function employeeRow(item: Employee) {
  const json = toJson<Employee>(item);
  const email = emailKey(item.email) ?? item.email;
  const key = contentKey(item, json);
  return {
    json,
    key: email === item.email ? key : sameCase(key, item.email, email),
    dedupeKey: email,
    label: item.email,
  };
}

function emailProblem(email: string, label = "email"): string {
  return `${label}: ${email === "" ? "empty" : `"${email}" ${EMAIL_MESSAGE}`}`;
}

/**
 * A date field as the service takes it, read as date flags are (`YYYY-MM-DD` at midnight UTC, or ISO 8601);
 * the value as it was, and a problem, when it is no date.
 */
function checkedDate<V>(field: string, value: V, problems: string[]): V | string {
  if (typeof value === "string" && /^\d{4}-\d{2}-\d{2}/.test(value.trim())) {
    try {
      return toServiceTime(parseDate(value, "start", "date"));
    } catch {}
  }
  const shown = typeof value === "string" ? `"${value}"` : JSON.stringify(value);
  problems.push(`${field}: ${shown} is not a date (use YYYY-MM-DD or ISO 8601)`);
  return value;
}

/** The content key with the e-mail (the item's first field) as a key: rows differing only there are repeats. */
function sameCase(key: string, email: string, lower: string): string {
  const head = `{"email":${JSON.stringify(email)}`;
  return key.startsWith(head) ? `{"email":${JSON.stringify(lower)}${key.slice(head.length)}` : key;
}

/**
 * A row's ledger key: the employee as JSON, its custom fields in order of name (zod writes the other fields in
 * the schema's order), so the same employee written in another order is the same row.
 */
function contentKey(item: Employee, json: string): string {
  const hrms = item.employeeHRMSInfo;
  const custom = hrms?.customFieldWithValue;
  if (!custom) return json;
  const names = Object.keys(custom);
  if (names.every((name, i) => i === 0 || names[i - 1]! <= name)) return json;
  const sorted: Record<string, string> = {};
  for (const name of names.sort()) sorted[name] = custom[name]!;
  return JSON.stringify({ ...item, employeeHRMSInfo: { ...hrms, customFieldWithValue: sorted } });
}
