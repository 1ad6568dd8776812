import type { BulkCandidate, BulkInviteSettings } from "../../api/schemas.js";
import { csvRows } from "../../bulk/check.js";
import { ledgerTarget, parseChunkSize, parseConcurrency, runAndReport } from "../../bulk/command.js";
import { noRowsMessage, openCsv, parseDelimiter } from "../../bulk/csv.js";
import { inviteColumns } from "../../bulk/invites.js";
import { CsvRejects, rejectsTarget } from "../../bulk/rejects.js";
import { UsageError } from "../../errors.js";
import { parseDate, refusePastEnd, toServiceTime } from "../../parse/dates.js";
import { MAX_BULK_CANDIDATES } from "../../spec/limits.js";
import type { Handler } from "../shared/kit.js";
import { parseId, resolveTestId } from "../shared/options.js";
import { dropUndefined } from "./shared.js";

const bulk: Handler = async (ctx, args, o) => {
  const file = args[0]!;
  const chunkSize = parseChunkSize(o.chunkSize, MAX_BULK_CANDIDATES);
  const concurrency = parseConcurrency(o.concurrency, 4);
  const start = o.start === undefined ? undefined : parseDate(String(o.start), "start", "--start");
  const end = o.end === undefined ? undefined : parseDate(String(o.end), "end", "--end");
  if (start && end && end <= start) throw new UsageError("--end must be after --start");
  refusePastEnd(end);
  const settings: BulkInviteSettings = dropUndefined({
    startDateTime: start && toServiceTime(start),
    endDateTime: end && toServiceTime(end),
    timezoneId: o.timezone === undefined ? undefined : parseId(o.timezone, "--timezone"),
    proctoringMode: o.proctoring as BulkInviteSettings["proctoringMode"],
  });
  const force = o.force === true;
  const rejects = rejectsTarget(file, o.rejects, { force, dryRun: ctx.dryRun });

  const input = await openCsv(file, { delimiter: parseDelimiter(o.delimiter) });
  const columns = inviteColumns(input, {
    emailColumn: o.emailColumn as string | undefined,
    nameColumn: o.nameColumn as string | undefined,
  });
  if (columns.test !== undefined && o.test !== undefined) {
    throw new UsageError(
      `--test cannot be combined with the file's "${input.header[columns.test]}" column, which names each row's test`,
      "Drop --test to use the column, or remove the column to invite everyone to --test.",
    );
  }
  const testId = columns.test === undefined ? await resolveTestId(ctx, o.test) : undefined;

  const api = await ctx.api();
  const { baseUrl, key } = await ledgerTarget(ctx, "assess");
  return runAndReport<BulkCandidate>(
    ctx,
    {
      kind: "invite",
      inputName: input.name,
      noRowsMessage: noRowsMessage(input),
      ...csvRows(input, { rows: "invites", columns, testId }),
      target: (group) => ({ baseUrl, key, testId: Number(group) }),
      chunkSize,
      maxChunk: MAX_BULK_CANDIDATES,
      concurrency,
      skipInvalid: o.skipInvalid === true,
      restart: o.restart === true,
      retryUncertain: o.retryUncertain === true,
      rejects: async () => new CsvRejects(rejects, input.header, input.delimiter, force),
      send: async (group, rows) => {
        const accepted = await api.bulkInvite(
          Number(group),
          settings,
          rows.map((row) => row.json),
        );
        return accepted
          ? undefined
          : { refused: "the service answered false: no candidate of this request was invited" };
      },
    },
    {
      verb: "Invited",
      noun: ["candidate", "candidates"],
      target: testId !== undefined ? `to test ${testId}` : "to their tests",
      inputName: input.name,
      groupLabel: columns.test !== undefined ? "test" : undefined,
    },
  );
};
export default bulk;
