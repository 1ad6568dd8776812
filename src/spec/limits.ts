/**
 * The service's limits per request, in one place: the client chunks and checks requests by them, the
 * sandbox enforces them. Data only, so both sides of the wire may import it.
 */

/** Candidates per bulk invite request; more is refused. */
export const MAX_BULK_CANDIDATES = 1000;
/** Employees per upsert request: the service's limit, though its documentation shows none. */
export const MAX_UPSERT_EMPLOYEES = 100;
/** Ids per process-callbacks request. */
export const MAX_CALLBACK_IDS = 100;
/** Days between StartDateTime and EndDateTime of one attempt listing. */
export const MAX_ATTEMPT_SPAN_DAYS = 30;
/**
 * The `state` values of the attempt listing (POST /v3/candidates/testattempts?state=): the service documents only
 * `completed` ("other accepted values: not shown"), so nothing else is sent.
 */
export const ATTEMPT_STATES = ["completed"] as const;
