/**
 * Employee skills API (paths without /v3), employee records: GET /employees, GET /employees/skills-profile,
 * POST /employees/upsert, PATCH /employees/{id}/status, GET /employees/{id}/reports/{testId}.
 */

import { MAX_UPSERT_EMPLOYEES } from "../../spec/limits.js";
import { idParam, ok, ownedEmployee, ownedTest, queryInt, type RouteContext } from "../context.js";
import { isoSeconds, parseIsoDateTime } from "../dates.js";
import { employeeView, skillsProfileView } from "../employee-views.js";
import { badRequest, MSG, statusError } from "../errors.js";
import { reportPdfUrl } from "../lifecycle.js";
import { buildReport } from "../report-builder.js";
import type { Router } from "../router.js";
import {
  EMPLOYEE_STATUSES,
  type Employee,
  type EmployeeStatus,
  type Invitation,
  isFinished,
} from "../state.js";
import { isEmail, isObject, isPresent, type JsonObject, nonEmptyString, Problems } from "../validate.js";

/** Skills-API paging: PageNumber (1-based) / PageSize (default 20, max 100) → items, hasNextPage, totalCount. */
export function paged<T, R>(ctx: RouteContext, all: T[], map: (item: T) => R) {
  const pageNumber = queryInt(ctx, "PageNumber", 1);
  const pageSize = queryInt(ctx, "PageSize", 20);
  const problems = new Problems();
  if (!Number.isInteger(pageNumber) || pageNumber < 1) problems.add("PageNumber must be a positive integer");
  if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > 100)
    problems.add("PageSize must be between 1 and 100");
  problems.throwIfAny();
  const start = (pageNumber - 1) * pageSize;
  return ok({
    items: all.slice(start, start + pageSize).map(map),
    hasNextPage: start + pageSize < all.length,
    totalCount: all.length,
    pageNumber,
  });
}

function setStatus(ctx: RouteContext) {
  const emp = ownedEmployee(ctx, idParam(ctx, "employeeId"));
  const body = ctx.json();
  const status = isObject(body) ? body.status : undefined;
  if (typeof status !== "string" || !(EMPLOYEE_STATUSES as readonly string[]).includes(status)) {
    throw badRequest(`status must be one of ${EMPLOYEE_STATUSES.join(", ")}`);
  }
  emp.status = status as EmployeeStatus;
  emp.updatedAt = isoSeconds(ctx.now);
  return ok({ employeeId: emp.employeeId, status: emp.status });
}

function employeeReport(ctx: RouteContext) {
  const emp = ownedEmployee(ctx, idParam(ctx, "employeeId"));
  const test = ownedTest(ctx, idParam(ctx, "testId"));
  const email = emp.email.toLowerCase();
  let latest: Invitation | undefined;
  for (const inv of ctx.store.data.invitations) {
    if (inv.accountId !== ctx.account || inv.testId !== test.testId || !isFinished(inv.status)) continue;
    if (inv.email.toLowerCase() !== email || !inv.completedAt) continue;
    if (!latest || Date.parse(inv.completedAt) >= Date.parse(latest.completedAt!)) latest = inv;
  }
  if (!latest) throw statusError(404, MSG.noEmployeeReport);
  return ok(buildReport(latest, test, reportPdfUrl(ctx.env, latest.testInvitationId)));
}

// ---- upsert

interface UpsertOutcome {
  email: string;
  employeeId: number;
  errors: string | null;
}

const HRMS_TEXT_FIELDS = ["department", "location", "employmentType", "grade", "band"] as const;

function optionalText(problems: Problems, obj: JsonObject, field: string): string | null | undefined {
  const value = obj[field];
  if (value === undefined) return undefined;
  if (value === null || value === "") return null;
  if (typeof value === "string") return value.trim();
  if (typeof value === "number") return String(value);
  problems.add(`${field} must be a string`);
  return undefined;
}

/** One item of the upsert array; failures are per item (the request as a whole still answers 200). */
function upsertOne(ctx: RouteContext, item: unknown): UpsertOutcome {
  if (!isObject(item)) return { email: "", employeeId: 0, errors: "Each item must be a JSON object" };
  const problems = new Problems();
  const email = item.email;
  if (!isPresent(email) || email === "") problems.add("Email is required");
  else if (!isEmail(email)) problems.add(MSG.invalidEmail);
  if (!nonEmptyString(item.firstName)) problems.add("First name is required");
  if (!nonEmptyString(item.lastName)) problems.add("Last name is required");
  let jobCode: string | null | undefined;
  if (isPresent(item.jobCode) && item.jobCode !== "") {
    const code = String(item.jobCode).trim();
    if (!ctx.store.data.jobProfiles.some((p) => p.jobCode.toLowerCase() === code.toLowerCase())) {
      problems.add(`Unknown job code '${code}'`);
    } else
      jobCode = ctx.store.data.jobProfiles.find(
        (p) => p.jobCode.toLowerCase() === code.toLowerCase(),
      )!.jobCode;
  } else if (item.jobCode === null || item.jobCode === "") jobCode = null;

  const hrms: JsonObject = isObject(item.employeeHRMSInfo) ? item.employeeHRMSInfo : {};
  if (isPresent(item.employeeHRMSInfo) && !isObject(item.employeeHRMSInfo)) {
    problems.add("employeeHRMSInfo must be an object");
  }
  const externalEmployeeId = optionalText(problems, hrms, "externalEmployeeId");
  const texts = HRMS_TEXT_FIELDS.map((field) => [field, optionalText(problems, hrms, field)] as const);
  const managerEmail = optionalText(problems, hrms, "managerEmail");
  if (managerEmail && !isEmail(managerEmail)) problems.add("managerEmail is in invalid format");
  const dates: Record<"hireDate" | "exitDate", string | null | undefined> = {
    hireDate: undefined,
    exitDate: undefined,
  };
  for (const field of ["hireDate", "exitDate"] as const) {
    const value = hrms[field];
    if (value === undefined) continue;
    if (value === null || value === "") dates[field] = null;
    else {
      const parsed = parseIsoDateTime(value);
      if (parsed) dates[field] = isoSeconds(parsed);
      else problems.add(`${field} is not a valid date-time`);
    }
  }
  let custom: Record<string, string> | undefined;
  if (isPresent(hrms.customFieldWithValue)) {
    const cf = hrms.customFieldWithValue;
    if (isObject(cf) && Object.values(cf).every((v) => typeof v === "string"))
      custom = cf as Record<string, string>;
    else problems.add("customFieldWithValue must be a map of string to string");
  }

  // Identify: externalEmployeeId first, then e-mail (case-insensitive), both within the account.
  let existing = externalEmployeeId
    ? ctx.store.employeeByExternalId(ctx.account, externalEmployeeId)
    : undefined;
  if (!existing && isEmail(email)) existing = ctx.store.employeeByEmail(ctx.account, email);
  if (existing && isEmail(email)) {
    const owner = ctx.store.employeeByEmail(ctx.account, email);
    if (owner && owner !== existing) problems.add(`Email is already used by employee ${owner.employeeId}`);
  }
  const hireDate = dates.hireDate !== undefined ? dates.hireDate : (existing?.hireDate ?? null);
  const exitDate = dates.exitDate !== undefined ? dates.exitDate : (existing?.exitDate ?? null);
  if (hireDate && exitDate && Date.parse(exitDate) < Date.parse(hireDate)) {
    problems.add("exitDate must not be before hireDate");
  }
  if (problems.list.length > 0) {
    return { email: typeof email === "string" ? email : "", employeeId: 0, errors: problems.list.join("; ") };
  }

  const validEmail = email as string;
  const at = isoSeconds(ctx.now);
  const emp: Employee =
    existing ??
    ({
      employeeId: ctx.store.nextEmployeeId(),
      accountId: ctx.account,
      email: validEmail,
      firstName: "",
      lastName: "",
      jobCode: null,
      status: "Active",
      externalEmployeeId: null,
      department: null,
      location: null,
      managerEmail: null,
      hireDate: null,
      exitDate: null,
      employmentType: null,
      grade: null,
      band: null,
      customFieldWithValue: {},
      skills: [],
      createdAt: at,
      updatedAt: at,
    } satisfies Employee);
  emp.firstName = (item.firstName as string).trim();
  emp.lastName = (item.lastName as string).trim();
  if (jobCode !== undefined) emp.jobCode = jobCode;
  for (const [field, value] of texts) if (value !== undefined) emp[field] = value;
  if (managerEmail !== undefined) emp.managerEmail = managerEmail;
  emp.hireDate = hireDate;
  emp.exitDate = exitDate;
  if (custom) emp.customFieldWithValue = { ...custom };
  emp.updatedAt = at;
  const nextExternal = externalEmployeeId !== undefined ? externalEmployeeId : emp.externalEmployeeId;
  if (existing) ctx.store.reidentifyEmployee(emp, validEmail, nextExternal);
  else {
    emp.externalEmployeeId = nextExternal;
    ctx.store.addEmployee(emp);
  }
  return { email: validEmail, employeeId: emp.employeeId, errors: null };
}

/** POST /employees/upsert — 200 declared text/plain whose body is the JSON result. */
function upsert(ctx: RouteContext) {
  const body = ctx.json();
  if (!Array.isArray(body)) throw badRequest("The request body must be a JSON array of employees");
  if (body.length > MAX_UPSERT_EMPLOYEES) throw badRequest(MSG.upsertTooMany);
  const successful: UpsertOutcome[] = [];
  const failed: UpsertOutcome[] = [];
  for (const item of body) {
    const outcome = upsertOne(ctx, item);
    (outcome.errors === null ? successful : failed).push(outcome);
  }
  return {
    status: 200,
    body: JSON.stringify({ successful, failed }),
    contentType: "text/plain; charset=utf-8",
  };
}

export function registerEmployeeRoutes(router: Router): void {
  router
    .add("GET", "/employees", (ctx) =>
      paged(ctx, ctx.store.employeesOf(ctx.account), (e) => employeeView(e, ctx.store.data.jobProfiles)),
    )
    .add("GET", "/employees/skills-profile", (ctx) =>
      paged(ctx, ctx.store.employeesOf(ctx.account), (e) => skillsProfileView(e, ctx.store.data.jobProfiles)),
    )
    .add("POST", "/employees/upsert", upsert)
    .add("PATCH", "/employees/:employeeId/status", setStatus)
    .add("GET", "/employees/:employeeId/reports/:testId", employeeReport);
}
