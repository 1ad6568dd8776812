/**
 * zod schemas of the service's requests (strict: the documented names, quirks included, checked before
 * sending) and answers (loose: documented fields typed, others kept). Each is built on first use (`z.lazy`:
 * building all slowed start-up); the enums stay plain, their `.options` are value lists for flags.
 */

import * as z from "../parse/zod.js";
import { EMPLOYEE_STATUSES } from "../spec/employee-statuses.js";
import { PROCTORING_MODES } from "../spec/proctoring-modes.js";
import { SETTING_FLAGS } from "../spec/settings-flags.js";

type Shape = Parameters<typeof z.looseObject>[0];
/** An answer's object, built on first use: its documented fields typed, any others kept. */
const loose = <T extends Shape>(shape: () => T) => z.lazy(() => z.looseObject(shape()));
/** A request's object, built on first use: its documented fields only. */
const strict = <T extends Shape>(shape: () => T) => z.lazy(() => z.strictObject(shape()));

export const Flag = z.lazy(() => z.union([z.literal(0), z.literal(1)], { error: "must be 1 or 0" }));
export const UtcDateTime = z.lazy(() =>
  z.string().regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/, "must be YYYY-MM-DDTHH:mm:ssZ"),
);
export const Email = z.lazy(() => z.email("is not a valid e-mail address"));
export const Id = z.lazy(() => z.number().int().positive());
/** A number in an answer, which the service may send as a JSON string (`"testId": "1001"`); kept as sent. */
const NUMERIC_TEXT = /^\s*-?\d+(\.\d+)?\s*$/;
const num = <T extends z.ZodType>(schema: T) =>
  z.preprocess(
    (value) => (typeof value === "string" && NUMERIC_TEXT.test(value) ? Number(value) : value),
    schema,
  );
export const ProctoringMode = z.enum(PROCTORING_MODES);
/** What a request's field means, said once: the OpenAPI document and the MCP tools' arguments show it. */
const about = {
  email: "The candidate's e-mail address",
  name: "The candidate's full name",
  callback: "A URL the service notifies (POST) when the candidate starts and when they finish the test",
  redirect: "Where the candidate's browser goes once the test is over",
  mandatory:
    "1: the candidate may skip the test's mandatory profile fields; 0 (default): they must fill them",
  hideInstruction: "1: the candidate starts without the instructions page; 0 (default): it is shown first",
  stakeholders: "Comma-separated e-mails of people sent the candidate's result",
  start: "When the invitation opens: UTC YYYY-MM-DDTHH:mm:ssZ",
  end: "When the invitation expires: UTC YYYY-MM-DDTHH:mm:ssZ",
  timeZone:
    "The service's id of the time zone the candidate is shown times in (an opaque number, such as 1720)",
  proctoring:
    "How the candidate is watched: disabled (default), image (webcam snapshots) or video (a recording)",
} as const;
export const EmployeeStatus = z.enum(EMPLOYEE_STATUSES);

/** A record the service answers without a documented shape (a test, an employee, a certificate). */
export const AnyRecord = z.record(z.string(), z.unknown());

/** The 0/1 switches of a test's settings, each by its name. */
const switches = () =>
  Object.fromEntries(SETTING_FLAGS.map((flag) => [flag, Flag.optional()])) as Record<
    (typeof SETTING_FLAGS)[number],
    z.ZodOptional<typeof Flag>
  >;
export const TestSettings = loose(() => ({
  testName: z.string().optional(),
  testAliasName: z.string().nullable().optional(),
  typeOfTest: z.union([z.literal(1), z.literal(2)]).optional(),
  ...switches(),
}));
export type TestSettings = z.infer<typeof TestSettings>;

export const InvitationType = z.enum(["email", "open"]);
export const ScheduleType = z.enum(["validityindays", "timebound", "slotwise"]);
export const LinkStatus = z.enum(["active", "inactive"]);
export const TestLinkBody = strict(() => ({
  testId: Id.optional(),
  testLinkName: z
    .string()
    .min(1)
    .describe("The link's name, as the test's list of links shows it")
    .optional(),
  testLinkStatus: LinkStatus.describe(
    "active: candidates can use the link; inactive: they cannot",
  ).optional(),
  invitationType: InvitationType.describe(
    "email: candidates are invited one by one by e-mail; open: anyone with the link can take the test",
  ).optional(),
  isApiLink: z.boolean().describe("true: a link whose invitations are sent through the API").optional(),
  proctoringSettings: z
    .strictObject({ proctoringMode: ProctoringMode.describe(about.proctoring) })
    .describe("How candidates who come through the link are watched")
    .optional(),
  stakeholderEmails: z.string().nullable().describe(about.stakeholders).optional(),
  invitationSchedule: z
    .strictObject({
      scheduleType: ScheduleType.describe(
        "validityindays: an invitation is valid for invitationValidityInDays from when it is sent; timebound: from startDateTime to endDateTime; slotwise: in time slots",
      ),
      scheduleDetails: z
        .strictObject({
          invitationValidityInDays: z
            .number()
            .int()
            .positive()
            .describe("Days an invitation stays valid (validityindays)")
            .optional(),
          startDateTime: UtcDateTime.describe(
            "When invitations open (timebound): UTC YYYY-MM-DDTHH:mm:ssZ",
          ).optional(),
          endDateTime: UtcDateTime.describe(
            "When invitations expire (timebound): UTC YYYY-MM-DDTHH:mm:ssZ",
          ).optional(),
          timeZoneId: z.number().int().describe(about.timeZone).optional(),
        })
        .describe("The schedule's values: the days of validityindays, or the times of timebound"),
    })
    .describe("When the link's invitations are valid")
    .optional(),
}));
export type TestLinkBody = z.infer<typeof TestLinkBody>;
export const TestLink = loose(() => ({
  testLinkId: num(z.number()),
  testId: num(z.number()).optional(),
  testLinkName: z.string().nullish(),
  testLink: z.string().nullish(),
  testLinkStatus: z.string().nullish(),
  invitationType: z.union([z.string(), z.number()]).nullish(),
  isApiLink: z.boolean().nullish(),
  proctoringSettings: z.looseObject({ proctoringMode: z.string().nullish() }).nullish(),
  stakeholderEmails: z.string().nullish(),
  invitationSchedule: z
    .looseObject({
      scheduleType: z.string().nullish(),
      scheduleDetails: z
        .looseObject({
          invitationValidityInDays: num(z.number()).nullish(),
          startDateTime: z.string().nullish(),
          endDateTime: z.string().nullish(),
          timeZoneId: num(z.number()).nullish(),
        })
        .nullish(),
    })
    .nullish(),
}));
export type TestLink = z.infer<typeof TestLink>;

// sendEmail is the string "yes" or "no" here, a 0/1 flag in a link invitation.
export const InviteBody = strict(() => ({
  emailId: Email.describe(about.email).optional(),
  fullName: z.string().min(1).describe(about.name).optional(),
  callbackURL: z.url().describe(about.callback).optional(),
  redirectURL: z.url().describe(about.redirect).optional(),
  disableMandatoryFields: Flag.describe(about.mandatory).optional(),
  hideInstruction: Flag.describe(about.hideInstruction).optional(),
  sendEmail: z
    .enum(["yes", "no"])
    .describe(
      '"yes": the service e-mails the candidate the test link; "no" (default): it does not (share testUrl)',
    )
    .optional(),
  stakeholderEmails: z.string().describe(about.stakeholders).optional(),
  startDateTime: UtcDateTime.describe(about.start).optional(),
  endDateTime: UtcDateTime.describe(about.end).optional(),
  timeZoneId: z.number().int().describe(about.timeZone).optional(),
  ProctoringMode: ProctoringMode.describe(about.proctoring).optional(),
}));
export type InviteBody = z.infer<typeof InviteBody>;

export const ReattemptBody = strict(() => ({
  StartDateTime: UtcDateTime.describe("When the new attempt opens: UTC YYYY-MM-DDTHH:mm:ssZ").optional(),
  EndDateTime: UtcDateTime.describe("When the new attempt expires: UTC YYYY-MM-DDTHH:mm:ssZ").optional(),
  TimeZoneId: z.number().int().describe(about.timeZone).optional(),
  CallbackUrl: z.url().describe(about.callback).optional(),
  RedirectUrl: z.url().describe(about.redirect).optional(),
  hideInstruction: Flag.describe(about.hideInstruction).optional(),
}));
export type ReattemptBody = z.infer<typeof ReattemptBody>;

export const LinkInviteBody = z.lazy(() =>
  InviteBody.unwrap()
    .pick({
      emailId: true,
      fullName: true,
      callbackURL: true,
      redirectURL: true,
      disableMandatoryFields: true,
      hideInstruction: true,
    })
    .extend({
      sendEmail: Flag.describe(
        "1: the service e-mails the candidate the test link; 0 (default): it does not (share testUrl)",
      ).optional(),
    }),
);
export type LinkInviteBody = z.infer<typeof LinkInviteBody>;

export const Invitation = loose(() => ({
  testInvitationId: num(z.number()),
  testUrl: z.string().nullish(),
  status: z.string().nullish(),
}));
export type Invitation = z.infer<typeof Invitation>;

export const BulkInviteSettings = strict(() => ({
  startDateTime: UtcDateTime.describe(about.start).optional(),
  endDateTime: UtcDateTime.describe(about.end).optional(),
  timezoneId: z.number().int().describe(about.timeZone).optional(),
  proctoringMode: ProctoringMode.describe(about.proctoring).optional(),
}));
export type BulkInviteSettings = z.infer<typeof BulkInviteSettings>;
export const BulkCandidateName = z.lazy(() => z.string().min(1));
/** One candidate of a bulk invite, as the request's `candidates` holds it. */
export const BulkCandidate = strict(() => ({
  email: Email.describe(about.email),
  name: BulkCandidateName.describe(about.name),
}));
export type BulkCandidate = z.infer<typeof BulkCandidate>;

export const TestAttempt = loose(() => ({
  testInvitationId: num(z.number()),
  extEmployeeId: z.unknown().optional(),
  testId: num(z.number()).nullish(),
  name: z.string().nullish(),
  email: z.string().nullish(),
  invitationtype: z.string().nullish(),
  teststatus: z.string().nullish(),
}));
export type TestAttempt = z.infer<typeof TestAttempt>;

export const Test = loose(() => ({
  testId: num(z.number()),
  testName: z.string().nullish(),
  status: z.string().nullish(),
  duration: num(z.number()).nullish(),
  labels: z.array(z.unknown()).nullish(),
}));
export type Test = z.infer<typeof Test>;
/** One test as GET /v3/tests/{testId} answers it: a listed test's fields, its questions and its sections. */
export const TestSection = loose(() => ({
  sectionName: z.string().nullish(),
  sectionType: z.string().nullish(),
  questions: num(z.number()).nullish(),
  duration: num(z.number()).nullish(),
}));
export const TestDetail = z.lazy(() =>
  Test.unwrap().extend({
    questions: num(z.number()).nullish(),
    sections: z.array(TestSection).nullish(),
  }),
);
export type TestDetail = z.infer<typeof TestDetail>;

export const ReportSection = loose(() => ({
  sectionId: z.union([z.number(), z.string()]).nullish(),
  sectionName: z.string().nullish(),
  candidateScore: num(z.number()).nullish(),
  sectionScore: num(z.number()).nullish(),
}));
export const Report = loose(() => ({
  testInvitationId: num(z.number()).nullish(),
  testId: num(z.number()).nullish(),
  candidateEmail: z.string().nullish(),
  candidateName: z.string().nullish(),
  attemptedOn: z.string().nullish(),
  Status: z.string().nullish(),
  scorePercentage: num(z.number()).nullish(),
  candidatePoints: num(z.number()).nullish(),
  totalTestPoints: num(z.number()).nullish(),
  testName: z.string().nullish(),
  pdfReportUrl: z.string().nullish(),
  PerformanceCategory: z.string().nullish(),
  timeTaken: z.union([z.string(), z.number()]).nullish(),
  sections: z.array(ReportSection).nullish(),
}));
export type Report = z.infer<typeof Report>;

// User e-mails are judged by the service, whose messages ("Email address is in invalid format") users expect.
const UserEmail = z.lazy(() => z.string().min(1));
const BUSINESS_UNIT = "The id of a business unit of the account (the service's web application shows them)";
export const UserCreateBody = strict(() => ({
  email: UserEmail.describe("The new user's e-mail: they sign in with it"),
  fullName: z.string().min(1).describe("The new user's full name"),
  businessunitId: Id.describe(`${BUSINESS_UNIT}; the default unit when left out`).optional(),
}));
export const UserUpdateBody = strict(() => ({
  Email: UserEmail.describe("The user's e-mail"),
  BusinessunitId: Id.describe(`${BUSINESS_UNIT} to move the user to`),
}));
export const UserStatusBody = strict(() => ({
  email: UserEmail.describe("The user's e-mail"),
  status: z.enum(["Active", "Inactive"]).describe("Active: the user can sign in; Inactive: they cannot"),
}));
export const User = loose(() => ({
  email: z.string().nullish(),
  fullName: z.string().nullish(),
  businessunitId: num(z.number()).nullish(),
  status: z.string().nullish(),
}));
export type User = z.infer<typeof User>;

export const GdprBody = strict(() => ({
  CandidateEmail: Email.describe("The e-mail of the candidate whose personal data is masked"),
  testinvitationId: Id.describe(
    "Only this invitation of theirs (a testInvitationId); every one of theirs when left out",
  ).optional(),
}));

export const CallbacksResult = loose(() => ({
  testinvitationIds: z
    .looseObject({ successful: z.array(z.unknown()).nullish(), failed: z.array(z.unknown()).nullish() })
    .nullish(),
}));

const DateTimeString = z.lazy(() =>
  z.string().refine((value) => !Number.isNaN(Date.parse(value)), "must be a date-time"),
);
const EmployeeHrms = strict(() => ({
  externalEmployeeId: z.string().min(1).describe("The employee's id in the HR system").optional(),
  department: z.string().describe("The employee's department").optional(),
  location: z.string().describe("Where the employee works").optional(),
  managerEmail: Email.describe("The e-mail of the employee's manager").optional(),
  hireDate: DateTimeString.describe("When the employee was hired: YYYY-MM-DD or an ISO time").optional(),
  exitDate: DateTimeString.describe("When the employee left: YYYY-MM-DD or an ISO time").optional(),
  employmentType: z.string().describe("Such as full-time, part-time or contractor").optional(),
  grade: z.string().describe("The employee's grade in the HR system").optional(),
  band: z.string().describe("The employee's band in the HR system").optional(),
  customFieldWithValue: z
    .record(z.string(), z.string())
    .describe("The account's own employee fields, by name, with text values")
    .optional(),
}));
export const EmployeeUpsertItem = strict(() => ({
  email: Email.describe("The employee's e-mail: an employee who has it is updated, else one is created"),
  firstName: z.string().describe("The employee's first name").optional(),
  lastName: z.string().describe("The employee's last name").optional(),
  jobCode: z.string().describe("The code of the employee's job in the HR system").optional(),
  employeeHRMSInfo: EmployeeHrms.describe("What the HR system knows of the employee").optional(),
}));
export type EmployeeUpsertItem = z.infer<typeof EmployeeUpsertItem>;
const UpsertOutcome = loose(() => ({
  email: z.string().nullish(),
  employeeId: num(z.number()).nullish(),
  errors: z.union([z.string(), z.array(z.string())]).nullish(),
}));
export const UpsertResult = loose(() => ({
  successful: z.array(UpsertOutcome).nullish(),
  failed: z.array(UpsertOutcome).nullish(),
}));
export type UpsertResult = z.infer<typeof UpsertResult>;

export const SkillsPage = loose(() => ({
  items: z.array(z.record(z.string(), z.unknown())),
  hasNextPage: z.boolean().nullish(),
  totalCount: num(z.number()).nullish(),
  pageNumber: num(z.number()).nullish(),
}));
