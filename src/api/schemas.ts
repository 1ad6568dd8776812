/**
 * zod schemas of the service's requests (strict: the documented names, quirks included, checked before
 * sending) and answers (loose: documented fields typed, others kept). Each is built on first use (`z.lazy`:
 * building all slowed start-up); the enums stay plain, their `.options` are value lists for flags.
 */

import * as z from "../parse/zod.js";
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
export const ProctoringMode = z.enum(["disabled", "image", "video"]);

export const TestSettings = loose(() => ({
  testName: z.string().optional(),
  testAliasName: z.string().nullable().optional(),
  typeOfTest: z.union([z.literal(1), z.literal(2)]).optional(),
  ...Object.fromEntries(SETTING_FLAGS.map((flag) => [flag, Flag.optional()])),
}));
export type TestSettings = z.infer<typeof TestSettings> &
  Partial<Record<(typeof SETTING_FLAGS)[number], 0 | 1>>;

export const InvitationType = z.enum(["email", "open"]);
export const ScheduleType = z.enum(["validityindays", "timebound", "slotwise"]);
export const LinkStatus = z.enum(["active", "inactive"]);
export const TestLinkBody = strict(() => ({
  testId: Id.optional(),
  testLinkName: z.string().min(1).optional(),
  testLinkStatus: LinkStatus.optional(),
  invitationType: InvitationType.optional(),
  isApiLink: z.boolean().optional(),
  proctoringSettings: z.strictObject({ proctoringMode: ProctoringMode }).optional(),
  stakeholderEmails: z.string().nullable().optional(),
  invitationSchedule: z
    .strictObject({
      scheduleType: ScheduleType,
      scheduleDetails: z.strictObject({
        invitationValidityInDays: z.number().int().positive().optional(),
        startDateTime: UtcDateTime.optional(),
        endDateTime: UtcDateTime.optional(),
        timeZoneId: z.number().int().optional(),
      }),
    })
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
  emailId: Email.optional(),
  fullName: z.string().min(1).optional(),
  callbackURL: z.url().optional(),
  redirectURL: z.url().optional(),
  disableMandatoryFields: Flag.optional(),
  hideInstruction: Flag.optional(),
  sendEmail: z.enum(["yes", "no"]).optional(),
  stakeholderEmails: z.string().optional(),
  startDateTime: UtcDateTime.optional(),
  endDateTime: UtcDateTime.optional(),
  timeZoneId: z.number().int().optional(),
  ProctoringMode: ProctoringMode.optional(),
}));
export type InviteBody = z.infer<typeof InviteBody>;

export const ReattemptBody = strict(() => ({
  StartDateTime: UtcDateTime.optional(),
  EndDateTime: UtcDateTime.optional(),
  TimeZoneId: z.number().int().optional(),
  CallbackUrl: z.url().optional(),
  RedirectUrl: z.url().optional(),
  hideInstruction: Flag.optional(),
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
    .extend({ sendEmail: Flag.optional() }),
);
export type LinkInviteBody = z.infer<typeof LinkInviteBody>;

export const Invitation = loose(() => ({
  testInvitationId: num(z.number()),
  testUrl: z.string().nullish(),
  status: z.string().nullish(),
}));
export type Invitation = z.infer<typeof Invitation>;

export const BulkInviteSettings = strict(() => ({
  startDateTime: UtcDateTime.optional(),
  endDateTime: UtcDateTime.optional(),
  timezoneId: z.number().int().optional(),
  proctoringMode: ProctoringMode.optional(),
}));
export type BulkInviteSettings = z.infer<typeof BulkInviteSettings>;
export const BulkCandidateName = z.lazy(() => z.string().min(1));
/** One candidate of a bulk invite, as the request's `candidates` holds it. */
export const BulkCandidate = strict(() => ({ email: Email, name: BulkCandidateName }));
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
export const UserCreateBody = strict(() => ({
  email: UserEmail,
  fullName: z.string().min(1),
  businessunitId: Id.optional(),
}));
export const UserUpdateBody = strict(() => ({ Email: UserEmail, BusinessunitId: Id }));
export const UserStatusBody = strict(() => ({ email: UserEmail, status: z.enum(["Active", "Inactive"]) }));
export const User = loose(() => ({
  email: z.string().nullish(),
  fullName: z.string().nullish(),
  businessunitId: num(z.number()).nullish(),
  status: z.string().nullish(),
}));
export type User = z.infer<typeof User>;

export const GdprBody = strict(() => ({ CandidateEmail: Email, testinvitationId: Id.optional() }));

export const CallbacksResult = loose(() => ({
  testinvitationIds: z
    .looseObject({ successful: z.array(z.unknown()).nullish(), failed: z.array(z.unknown()).nullish() })
    .nullish(),
}));

const DateTimeString = z.lazy(() =>
  z.string().refine((value) => !Number.isNaN(Date.parse(value)), "must be a date-time"),
);
const EmployeeHrms = strict(() => ({
  externalEmployeeId: z.string().min(1).optional(),
  department: z.string().optional(),
  location: z.string().optional(),
  managerEmail: Email.optional(),
  hireDate: DateTimeString.optional(),
  exitDate: DateTimeString.optional(),
  employmentType: z.string().optional(),
  grade: z.string().optional(),
  band: z.string().optional(),
  customFieldWithValue: z.record(z.string(), z.string()).optional(),
}));
export const EmployeeUpsertItem = strict(() => ({
  email: Email,
  firstName: z.string().optional(),
  lastName: z.string().optional(),
  jobCode: z.string().optional(),
  employeeHRMSInfo: EmployeeHrms.optional(),
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
