/**
 * A finished attempt (from the listing or a notification, fields in any casing) as a short message people
 * read: Slack Block Kit or a Teams Adaptive Card. Every value is hostile: control characters escaped, lengths
 * capped, and only an http(s) link becomes a button.
 */
import { escapeControls } from "../escape.js";
import { field } from "../fields.js";

/** Slack caps a section's text at 3,000 characters and a field at 2,000; a line here stays well short. */
const VALUE_CHARS = 200;
const URL_CHARS = 2000;

function text(value: unknown): string | undefined {
  if (typeof value !== "string" && typeof value !== "number") return undefined;
  const shown = escapeControls(String(value)).trim();
  if (shown === "") return undefined;
  return shown.length > VALUE_CHARS ? `${shown.slice(0, VALUE_CHARS - 1)}…` : shown;
}

function first(record: Record<string, unknown>, ...names: string[]): string | undefined {
  return names.map((name) => text(field(record, name))).find((value) => value !== undefined);
}

/** An http(s) link of reasonable length, else nothing (a `javascript:` link is never a button). */
function link(value: unknown): string | undefined {
  if (typeof value !== "string" || value.length > URL_CHARS) return undefined;
  try {
    const url = new URL(value.trim());
    return url.protocol === "https:" || url.protocol === "http:" ? url.toString() : undefined;
  } catch {
    return undefined;
  }
}

function summarize(record: Record<string, unknown>) {
  const name = first(record, "name", "candidateName", "fullName");
  const email = first(record, "email", "CandidateEmailId", "emailId");
  const testName = first(record, "testName");
  const testId = first(record, "testId");
  // A notification's names, then a report's (attempts watch adds the attempt's report to the listing's record).
  const candidateScore = first(record, "CandidateScore", "candidatePoints", "score");
  const totalScore = first(record, "TotalScore", "totalTestPoints");
  const category = first(record, "PerformanceCategory");
  const score = [candidateScore && totalScore ? `${candidateScore}/${totalScore}` : candidateScore, category]
    .filter(Boolean)
    .join(" ");
  return {
    id: first(record, "testInvitationId") ?? "?",
    candidate: name && email ? `${name} (${email})` : (name ?? email ?? "A candidate"),
    test: testName ?? (testId ? `test ${testId}` : "a test"),
    status: first(record, "testStatus", "Status") ?? "finished",
    score: score === "" ? undefined : score,
    report: link(
      field(record, "ReportPDFUrl") ?? field(record, "pdfReportUrl") ?? field(record, "reportUrl"),
    ),
  };
}

function headline(s: ReturnType<typeof summarize>): string {
  return `${s.candidate} finished ${s.test}: ${s.status}${s.score ? `, ${s.score}` : ""}`;
}

function present(pairs: [string, string | undefined][]): [string, string][] {
  return pairs.filter((pair): pair is [string, string] => pair[1] !== undefined);
}

/** Breaks what Slack would read as markup without showing anything (a zero-width space). */
const ZWSP = "\u200b";

/**
 * A value in Slack's mrkdwn, shown as it is: `&`, `<` and `>` escaped (so `<!channel>` pings no one); `*`,
 * `_`, `~` and backticks fenced by zero-width spaces (no bold, italics, strike or code); a mention (`@channel`,
 * `@here`, `@someone`) and a bare link (`https://…`) broken the same way. The blocks also set `verbatim`.
 */
function mrkdwn(value: string): string {
  return value
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/[*_~`]/g, (c) => `${ZWSP}${c}${ZWSP}`)
    .replace(/(^|[^\w.+-])@/g, `$1@${ZWSP}`)
    .replace(/\b([a-z][a-z\d+.-]*):\/\//gi, `$1:${ZWSP}//`);
}

/** A mrkdwn text object Slack shows as written: no links or mentions made of what it holds. */
function section(text: string): Record<string, unknown> {
  return { type: "mrkdwn", text, verbatim: true };
}

/** Slack incoming webhook: `text` (the notification's fallback) and blocks. */
export function slackMessage(record: Record<string, unknown>): Record<string, unknown> {
  const s = summarize(record);
  const fields = present([
    ["Status", s.status],
    ["Score", s.score],
    ["Invitation", s.id],
  ]).map(([title, value]) => section(`*${title}*\n${mrkdwn(value)}`));
  const blocks: Record<string, unknown>[] = [
    { type: "section", text: section(`*${mrkdwn(s.candidate)}* finished *${mrkdwn(s.test)}*`) },
    { type: "section", fields },
  ];
  if (s.report) {
    blocks.push({
      type: "actions",
      elements: [{ type: "button", text: { type: "plain_text", text: "Open report" }, url: s.report }],
    });
  }
  return { text: mrkdwn(headline(s)), blocks };
}

/**
 * Adaptive Cards render a subset of Markdown: the characters that make links, emphasis and headings are
 * escaped, so a name cannot become a link; dots and dashes of e-mails and dates are left as they are.
 */
function plain(value: string): string {
  return value.replace(/[\\`*_[\]()<>~#]/g, (c) => `\\${c}`);
}

/** Teams (Workflows "post to a channel when a webhook request is received"): a message holding one Adaptive Card. */
export function teamsMessage(record: Record<string, unknown>): Record<string, unknown> {
  const s = summarize(record);
  const facts = present([
    ["Candidate", s.candidate],
    ["Test", s.test],
    ["Status", s.status],
    ["Score", s.score],
    ["Invitation", s.id],
  ]).map(([title, value]) => ({ title, value: plain(value) }));
  const card: Record<string, unknown> = {
    $schema: "http://adaptivecards.io/schemas/adaptive-card.json",
    type: "AdaptiveCard",
    version: "1.4",
    body: [
      { type: "TextBlock", text: plain(headline(s)), weight: "Bolder", size: "Medium", wrap: true },
      { type: "FactSet", facts },
    ],
  };
  if (s.report) card.actions = [{ type: "Action.OpenUrl", title: "Open report", url: s.report }];
  return {
    type: "message",
    attachments: [
      { contentType: "application/vnd.microsoft.card.adaptive", contentUrl: null, content: card },
    ],
  };
}
