/** Completion notifications (callbacks) queued again, by testInvitationId: `callbacks resend`, `reconcile`. */
import { toJson } from "../../api/json.js";
import { OPERATIONS } from "../../api/operations/index.js";
import { positiveId } from "../../fields.js";
import type { ChunkAnswer } from "../engine/types.js";
import { type Job, ledgerTarget, type Service } from "./index.js";

const NOT_IN_ACCOUNT = "not found in this account (the service answered 401 naming it)";
const NOT_QUEUED =
  "the service could not queue its notification (is a callback URL registered, and is the attempt finished?)";

/** Given `notQueued`, an id the service could not queue (no callback URL) is handed there and not a failure. */
export function resendJob(service: Service, notQueued?: (id: number) => void): Job<string | number, number> {
  const target = ledgerTarget(service, "assess");
  return {
    kind: "callbacks",
    maxChunk: OPERATIONS.processCallbacks.limits.items,
    target: () => target,
    prepare: prepareId,
    send: (_group, rows) =>
      resendChunk(
        service,
        rows.map((row) => Number(row.label)),
        notQueued,
      ),
  };
}

/** An id as a line of a file or an argument gives it. */
export function prepareId(value: string | number) {
  const id = positiveId(value);
  if (id === undefined) return { invalid: `"${value}" is not a testInvitationId (a positive whole number)` };
  return { key: String(id), label: String(id), json: toJson(id) };
}

/**
 * One chunk. A 401 that names ids refuses the whole call: those of the chunk are reported as failed and the
 * others are sent once more without them, so one stray id does not hold back a hundred good ones. That is the
 * only retry: each id goes out at most twice, whatever the service names (a 401 naming ids never sent, or
 * new ones each time, refuses the chunk; a rerun sends its ids again).
 */
async function resendChunk(
  { api }: Service,
  ids: number[],
  notQueued?: (id: number) => void,
): Promise<ChunkAnswer> {
  const known = new Set(ids);
  const foreign = new Set<number>();
  /** The refused ids of this chunk; the others the service named are kept apart, to be reported. */
  const ours = (invalid: number[]) => {
    const mine: number[] = [];
    for (const id of invalid) {
      if (known.has(id)) mine.push(id);
      else foreign.add(id);
    }
    return mine;
  };
  let answer = await api.processCallbacks(ids);
  const refused = new Set(ours(answer.invalid));
  let rest = ids;
  if (refused.size > 0 && refused.size < known.size) {
    rest = ids.filter((id) => !refused.has(id));
    answer = await api.processCallbacks(rest);
    // Ids the second answer refuses are this chunk's too: reported as not found, not retried.
    for (const id of ours(answer.invalid)) refused.add(id);
  }
  const unsent = answer.invalid.length > 0 ? new Set(rest) : new Set<number>();
  const notQueuedIds = new Set(answer.failed);
  const failed: NonNullable<ChunkAnswer["failed"]> = [];
  ids.forEach((id, index) => {
    if (refused.has(id)) failed.push({ index, error: NOT_IN_ACCOUNT });
    else if (unsent.has(id))
      failed.push({
        index,
        error: "not resent: the service refused the request (401) without naming this id",
      });
    else if (notQueuedIds.has(id)) {
      if (notQueued) notQueued(id);
      else failed.push({ index, error: NOT_QUEUED });
    }
  });
  for (const id of notQueuedIds) if (!known.has(id)) foreign.add(id);
  const unmatched: string[] = [];
  for (const id of foreign) unmatched.push(`the service named id ${id}, which was not sent`);
  return { failed, unmatched };
}
