/**
 * `client.invitations.status()`: the invitation book (core/invitation-book.ts) read, never written (nothing is
 * pruned from here), and each candidate's state from the attempt listing (core/invitation-status.ts).
 */
import type { Api } from "../api/endpoints.js";
import type { InvitationBook } from "../core/invitation-book.js";
import { invitationStatus, startedFromLog } from "../core/invitation-status.js";
import { UsageError } from "../errors.js";
import { parseDate } from "../parse/dates.js";
import type { InvitationStatus, InvitationStatusOptions } from "./types.js";

export async function invitationsStatus(
  api: Api,
  book: InvitationBook | undefined,
  options: InvitationStatusOptions,
): Promise<InvitationStatus> {
  if (!book) throw new UsageError("This client keeps no invitation book: make it with createClient");
  const from = typeof options.from === "string" ? parseDate(options.from, "start", "from") : options.from;
  if (from !== undefined && Number.isNaN(from.getTime())) throw new UsageError("from is not a date");
  const started = options.log === undefined ? undefined : await startedFromLog(options.log, "log");
  const notices = {
    signal: options.signal ?? new AbortController().signal,
    // As the client tells what does not stop it (its retries' waits): `onRetry`.
    warn: (message: string) => api.transport.options.warn(message),
  };
  const status = await invitationStatus(notices, api, book, {
    tests: options.tests,
    from,
    started,
    readOnly: true,
  });
  return {
    tests: status.tests,
    candidates: status.candidates.map(({ keep: _keep, ...candidate }) => candidate),
  };
}
