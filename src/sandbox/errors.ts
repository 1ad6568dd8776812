/**
 * The service's three error body shapes (`{errors}`, `{result: null, errors}`, `{statusCode, message}`)
 * and its exact messages, in one place so every route answers the same words.
 */
export class ApiError extends Error {
  readonly status: number;
  readonly body: unknown;
  readonly headers: Record<string, string> | undefined;

  constructor(status: number, body: unknown, headers?: Record<string, string>) {
    super(describe(status, body));
    this.status = status;
    this.body = body;
    this.headers = headers;
  }
}

/** A readable Error.message for in-process callers (completeAttempt): the body's message(s), not its JSON. */
function describe(status: number, body: unknown): string {
  if (typeof body === "object" && body !== null) {
    const b = body as { message?: unknown; errors?: unknown };
    if (typeof b.message === "string") return `${status}: ${b.message}`;
    if (Array.isArray(b.errors)) return `${status}: ${b.errors.join("; ")}`;
  }
  return `${status}: ${String(body)}`;
}

export const MSG = {
  resourceNotFound: "Resource not found",
  methodNotAllowed: "Method not allowed",
  invalidKey:
    "Access denied due to invalid subscription key. Make sure to provide a valid key for an active subscription.",
  forbidden: "You do not have permission to access resource",
  testNotFound: "Test not found",
  invitationNotFound: "Invitation not found",
  testLinkNotFound: "Test link not found",
  testLinkInactive: "Test link is inactive",
  employeeNotFound: "Employee not found",
  userNotFound: "User not found",
  invalidEmail: "Email address is in invalid format",
  userExists: "The user is already exists",
  validEmailRequired: "A Valid Email address is required",
  invalidBusinessUnit: "The provided BusinessUnitId is invalid or not associated with your account.",
  invalidUserStatus: "Status must be either 'Active' or 'Inactive'",
  bulkTooMany: "A maximum of 1000 candidates is allowed per request",
  callbacksTooMany: "A maximum of 100 records can be processed per call",
  callbacksInvalidIds: "Invalid testinvitationIds",
  attemptsSpan: "The time range between StartDateTime and EndDateTime must not exceed 30 days",
  upsertTooMany: "A maximum of 100 employees is allowed per request",
  onlyPendingCancel: "Only a pending invitation can be cancelled",
  notAttemptedYet: "The candidate has not attempted the test yet",
  reattemptInProgress: "The test is in progress and cannot be reattempted",
  reportNotReady: "Report is not available until the test is completed",
  noEmployeeReport: "No completed assessment report found for this employee and test",
  gdprNoRecords: "No records found for the given candidate email",
  gdprAccepted: "Request accepted for processing",
  invalidJson: "Request body is not valid JSON",
  bodyMustBeObject: "Request body must be a JSON object",
  pageSize: "pageSize must be between 1 and 100",
  invitationTypeOutside: "Invitation Type field value is outside of permissible value",
  proctoringModeOutside: "Proctoring Mode field value is outside of permissible value",
  scheduleTypeOutside: "Schedule Type field value is outside of permissible value",
  linkStatusOutside: "Test Link Status field value is outside of permissible value",
} as const;

/** `{"errors":[...]}` — validation failures. */
export function badRequest(...messages: string[]): ApiError {
  return new ApiError(400, { errors: messages });
}

/** `{"result":null,"errors":[...]}` — the envelope of the attempt listing and callback processing. */
export function resultErrors(status: number, errors: unknown[]): ApiError {
  return new ApiError(status, { result: null, errors });
}

/** `{"statusCode":N,"message":"..."}` — gateway-style and resource errors. */
export function statusError(status: number, message: string, headers?: Record<string, string>): ApiError {
  return new ApiError(status, { statusCode: status, message }, headers);
}
