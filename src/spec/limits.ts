/** The service's limits per request: the client chunks and checks by them, the sandbox enforces them. */

/** Candidates per bulk invite request. */
export const MAX_BULK_CANDIDATES = 1000;
/** Employees per upsert request: the service's limit, though its documentation shows none. */
export const MAX_UPSERT_EMPLOYEES = 100;
/** Ids per process-callbacks request. */
export const MAX_CALLBACK_IDS = 100;
/** Days between StartDateTime and EndDateTime of one attempt listing. */
export const MAX_ATTEMPT_SPAN_DAYS = 30;
/** The `state` values of the attempt listing: the service documents only `completed`. */
export const ATTEMPT_STATES = ["completed"] as const;
