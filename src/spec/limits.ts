/**
 * The limits of API.md §8 (and the service's upsert limit), in one place: the client chunks and checks requests
 * by them, the sandbox enforces them. Data only, so both sides of the wire may import it.
 */

/** Candidates per bulk invite request (§4.2.2, §8). */
export const MAX_BULK_CANDIDATES = 1000;
/** Employees per upsert request: the service's limit; API.md shows none. */
export const MAX_UPSERT_EMPLOYEES = 100;
/** Ids per process-callbacks request (§4.3, §8). */
export const MAX_CALLBACK_IDS = 100;
/** Days between StartDateTime and EndDateTime of one attempt listing (§4.2.1, §8). */
export const MAX_ATTEMPT_SPAN_DAYS = 30;
