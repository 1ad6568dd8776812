import type { TestLink } from "../../api/schemas.js";
import type { Context } from "../../context.js";
import { escapeControls } from "../../escape.js";
import type { Column, Row } from "../../output/output.js";

const details = (row: Row) => (row as TestLink).invitationSchedule?.scheduleDetails;

/** When a candidate may use the link: a number of days, or a start and end time. */
function access(row: Row): string {
  const d = details(row);
  if (!d) return "";
  if (d.invitationValidityInDays != null) return `${d.invitationValidityInDays} days`;
  return d.startDateTime || d.endDateTime ? `${d.startDateTime ?? "?"} → ${d.endDateTime ?? "?"}` : "";
}

const LINK_COLUMNS: Column[] = [
  { key: "testLink", header: "TEST LINK" },
  { key: "testLinkId", header: "ID" },
  { key: "testLinkName", header: "NAME" },
  { key: "testLinkStatus", header: "STATUS" },
  { key: "invitationType", header: "TYPE" },
  { key: "isApiLink", header: "API LINK" },
  {
    key: "proctoringMode",
    header: "PROCTORING",
    get: (row) => (row as TestLink).proctoringSettings?.proctoringMode,
  },
  {
    key: "scheduleType",
    header: "SCHEDULE",
    get: (row) => (row as TestLink).invitationSchedule?.scheduleType,
  },
  { key: "access", header: "ACCESS", get: access },
  { key: "timeZoneId", header: "TIME ZONE", get: (row) => details(row)?.timeZoneId },
  { key: "stakeholderEmails", header: "STAKEHOLDERS" },
];

const LIST_KEYS = [
  "testLinkId",
  "testLinkName",
  "testLinkStatus",
  "invitationType",
  "scheduleType",
  "access",
  "testLink",
];
export const LIST_COLUMNS: Column[] = LIST_KEYS.map((key) => LINK_COLUMNS.find((c) => c.key === key)!);

/** One link; on a terminal its URL first on a line of its own (a table cell would cut it). */
export async function showLink(ctx: Context, link: TestLink): Promise<void> {
  if (ctx.out.format === "table" && !ctx.out.options.fields && link.testLink) {
    ctx.out.write(`${ctx.out.style.bold(escapeControls(link.testLink))}\n`);
    await ctx.out.record(link, LINK_COLUMNS.slice(1));
    return;
  }
  await ctx.out.record(link, LINK_COLUMNS);
}
