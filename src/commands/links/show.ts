import type { TestLink } from "../../api/schemas.js";
import type { Context } from "../../context.js";
import { escapeControls } from "../../escape.js";
import type { Column, Row } from "../../output/output.js";
import { arg, flag } from "../shared/flags.js";

const asLink = (row: Row) => row as TestLink;
const details = (row: Row) => asLink(row).invitationSchedule?.scheduleDetails;

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
    get: (row) => asLink(row).proctoringSettings?.proctoringMode,
  },
  { key: "scheduleType", header: "SCHEDULE", get: (row) => asLink(row).invitationSchedule?.scheduleType },
  { key: "access", header: "ACCESS", get: access },
  { key: "timeZoneId", header: "TIME ZONE", get: (row) => details(row)?.timeZoneId },
  { key: "stakeholderEmails", header: "STAKEHOLDERS" },
];

// The URL first in a record (or on a line of its own), last in a list of links.
const [URL_COLUMN, ...DETAIL_COLUMNS] = LINK_COLUMNS as [Column, ...Column[]];
const LISTED = ["testLinkId", "testLinkName", "testLinkStatus", "invitationType", "scheduleType", "access"];
export const LIST_COLUMNS = [...DETAIL_COLUMNS.filter((c) => LISTED.includes(c.key)), URL_COLUMN];

/** One link; on a terminal its URL first on a line of its own (a table cell would cut it). */
export async function showLink(ctx: Context, link: TestLink): Promise<void> {
  if (ctx.out.format === "table" && !ctx.out.options.fields && link.testLink) {
    ctx.out.write(`${ctx.out.style.bold(escapeControls(link.testLink))}\n`);
    await ctx.out.record(link, DETAIL_COLUMNS);
    return;
  }
  await ctx.out.record(link, LINK_COLUMNS);
}

/** The link a verb acts on, and the test it belongs to. */
export const linkArg = () => arg.id("<testLinkId>", "the link's id");
export const ofTest = () => ({ test: flag.id("the test the link belongs to") });
