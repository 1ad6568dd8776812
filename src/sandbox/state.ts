/**
 * The sandbox's whole store: plain JSON-serialisable data (so it can be dumped and persisted as is) plus the
 * indexes that keep every request O(1) in the number of stored invitations.
 */

import { EMPLOYEE_STATUSES, type EmployeeStatus } from "../spec/employee-statuses.js";
import { FINAL_STATUSES, type FinalStatus } from "../spec/final-statuses.js";
import type { ProctoringMode } from "../spec/proctoring-modes.js";
import type { SETTING_FLAGS } from "../spec/settings-flags.js";
import type { AccountId } from "./keys.js";

export type { AccountId };

export interface BusinessUnit {
  businessunitId: number;
  name: string;
  isDefault: boolean;
}

export interface Account {
  accountId: AccountId;
  name: string;
  defaultBusinessUnitId: number;
  businessUnits: BusinessUnit[];
}

export interface TestSection {
  sectionId: number;
  sectionName: string;
  sectionType: string;
  questions: number;
  duration: number;
  /** Maximum points of the section. */
  points: number;
  /** The skill the section measures (for reports "by skill"). */
  skill: string;
}

export type SettingsFlag = (typeof SETTING_FLAGS)[number];

export type TestSettings = { testAliasName: string; typeOfTest: 1 | 2 } & Record<SettingsFlag, 0 | 1>;

export interface Test {
  testId: number;
  accountId: AccountId;
  testName: string;
  status: string;
  duration: number;
  labels: string[];
  sections: TestSection[];
  settings: TestSettings;
}

export type ScheduleType = "validityindays" | "timebound" | "slotwise";

export interface TestLink {
  testLinkId: number;
  testId: number;
  testLinkName: string;
  testLink: string;
  testLinkStatus: "active" | "inactive";
  invitationType: "email" | "open";
  isApiLink: boolean;
  proctoringSettings: { proctoringMode: ProctoringMode };
  stakeholderEmails: string | null;
  invitationSchedule: {
    scheduleType: ScheduleType;
    scheduleDetails: {
      invitationValidityInDays: number | null;
      startDateTime: string | null;
      endDateTime: string | null;
      timeZoneId: number | null;
    };
  };
}

export type InvitationStatus = "Pending" | "In Progress" | "Cancelled" | "Expired" | FinalStatus;

export function isFinished(status: InvitationStatus): status is FinalStatus {
  return (FINAL_STATUSES as readonly string[]).includes(status);
}

export interface SectionResult {
  sectionId: number;
  candidateScore: number;
  sectionScore: number;
  sectionTimeTaken: number;
}

export interface AttemptResult {
  totalScore: number;
  candidateScore: number;
  scorePercentage: number;
  performanceCategory: string;
  timeTakenMinutes: number;
  sections: SectionResult[];
}

export interface Invitation {
  testInvitationId: number;
  accountId: AccountId;
  testId: number;
  email: string;
  name: string;
  status: InvitationStatus;
  /** The attempt record's invitationtype: "api" when made through the API, "app" for the seeded ones. */
  invitationType: "api" | "app";
  /** How it was made: single invite, bulk, test link, reattempt, or seed data. */
  channel: "invite" | "bulk" | "testlink" | "reattempt" | "seed";
  testUrl: string;
  createdAt: string;
  updatedAt?: string;
  testLinkId?: number;
  callbackURL?: string;
  redirectURL?: string;
  startDateTime?: string;
  endDateTime?: string;
  timeZoneId?: number;
  proctoringMode?: string;
  hideInstruction?: number;
  sendEmail?: boolean;
  stakeholderEmails?: string;
  reattemptOf?: number;
  masked?: boolean;
  startedAt?: string;
  completedAt?: string;
  result?: AttemptResult;
}

export interface User {
  accountId: AccountId;
  email: string;
  fullName: string;
  businessunitId: number;
  status: "Active" | "Inactive";
  role: string;
  createdAt: string;
}

export interface JobProfile {
  jobCode: string;
  title: string;
  skills: Array<{ skillName: string; requiredLevel: number }>;
}

export type SkillSource = "assessment" | "certificate" | "resume" | "self";

export interface EmployeeSkill {
  skillName: string;
  category: string;
  level: number;
  proficiency: string;
  source: SkillSource;
  updatedAt: string;
}

export { EMPLOYEE_STATUSES, type EmployeeStatus };

export interface Employee {
  employeeId: number;
  accountId: AccountId;
  email: string;
  firstName: string;
  lastName: string;
  jobCode: string | null;
  status: EmployeeStatus;
  externalEmployeeId: string | null;
  department: string | null;
  location: string | null;
  managerEmail: string | null;
  hireDate: string | null;
  exitDate: string | null;
  employmentType: string | null;
  grade: string | null;
  band: string | null;
  customFieldWithValue: Record<string, string>;
  skills: EmployeeSkill[];
  createdAt: string;
  updatedAt: string;
}

export interface InferredSkill {
  skillName: string;
  category: string;
}

export interface Certificate {
  certificateId: number;
  employeeId: number;
  title: string;
  issuer: string | null;
  issueDate: string | null;
  expiryDate: string | null;
  credentialUrl: string | null;
  credentialId: string | null;
  skills: InferredSkill[];
  createdAt: string;
}

export interface LearningAssignment {
  assignmentId: number;
  employeeId: number;
  assigned: Array<{ learningResourceId: string; title: string; skillName: string | null }>;
  dueDate: string | null;
  note: string | null;
  createdAt: string;
}

export interface ResumeUpload {
  employeeId: number;
  fileName: string;
  contentType: string;
  size: number;
  sha256: string;
  skills: InferredSkill[];
  uploadedAt: string;
}

export interface GdprRequest {
  accountId: AccountId;
  candidateEmailSha256: string;
  testinvitationId: number | null;
  maskedInvitationIds: number[];
  receivedAt: string;
}

/** One delivery of a test-completion notification (kept so tests can assert on re-deliveries). */
export interface NotificationRecord {
  testInvitationId: number;
  url: string;
  status: number | null;
  attempts: number;
  payloadStatus: string;
  sentAt: string;
}

export interface SandboxState {
  version: 1;
  seededAt: string;
  counters: {
    invitation: number;
    testLink: number;
    employee: number;
    certificate: number;
    learningAssignment: number;
  };
  accounts: Account[];
  tests: Test[];
  testLinks: TestLink[];
  invitations: Invitation[];
  users: User[];
  jobProfiles: JobProfile[];
  employees: Employee[];
  certificates: Certificate[];
  learningAssignments: LearningAssignment[];
  resumes: ResumeUpload[];
  gdprRequests: GdprRequest[];
  notifications: NotificationRecord[];
}

const NOTIFICATION_LOG_LIMIT = 1000;

function invitationKey(testId: number, email: string): string {
  return `${testId}\u0000${email.toLowerCase()}`;
}

function employeeEmailKey(accountId: AccountId, email: string): string {
  return `${accountId}\u0000${email.toLowerCase()}`;
}

/** The live state plus its indexes. Routes mutate the data only through these methods or in place. */
export class Store {
  readonly data: SandboxState;
  private readonly invitationsById = new Map<number, Invitation>();
  private readonly latestByTestEmail = new Map<string, Invitation>();
  private readonly employeesById = new Map<number, Employee>();
  private readonly employeesByEmail = new Map<string, Employee>();
  private readonly employeesByExternalId = new Map<string, Employee>();
  private readonly testsById = new Map<number, Test>();

  constructor(data: SandboxState) {
    this.data = data;
    for (const test of data.tests) this.testsById.set(test.testId, test);
    for (const inv of data.invitations) this.indexInvitation(inv);
    for (const emp of data.employees) this.indexEmployee(emp);
  }

  // ---- tests and links

  test(testId: number): Test | undefined {
    return this.testsById.get(testId);
  }

  testsOf(accountId: AccountId): Test[] {
    return this.data.tests.filter((t) => t.accountId === accountId);
  }

  linksOf(testId: number): TestLink[] {
    return this.data.testLinks.filter((l) => l.testId === testId);
  }

  nextTestLinkId(): number {
    return this.data.counters.testLink++;
  }

  // ---- invitations

  invitation(id: number): Invitation | undefined {
    return this.invitationsById.get(id);
  }

  /** The most recent invitation of this e-mail (case-insensitive) to this test: the re-invite rule keys on it. */
  latestInvitation(testId: number, email: string): Invitation | undefined {
    return this.latestByTestEmail.get(invitationKey(testId, email));
  }

  nextInvitationId(): number {
    return this.data.counters.invitation++;
  }

  addInvitation(inv: Invitation): void {
    this.data.invitations.push(inv);
    this.indexInvitation(inv);
  }

  /** Called after an invitation's e-mail changed (GDPR masking): the old address must not find it again. */
  reindexInvitationEmail(inv: Invitation, oldEmail: string): void {
    const oldKey = invitationKey(inv.testId, oldEmail);
    if (this.latestByTestEmail.get(oldKey) === inv) this.latestByTestEmail.delete(oldKey);
  }

  /** A Pending invitation past its end date is Expired; computed lazily when the invitation is looked at. */
  refreshExpiry(inv: Invitation, now: Date): Invitation {
    if (
      inv.status === "Pending" &&
      inv.endDateTime !== undefined &&
      Date.parse(inv.endDateTime) < now.getTime()
    ) {
      inv.status = "Expired";
    }
    return inv;
  }

  private indexInvitation(inv: Invitation): void {
    this.invitationsById.set(inv.testInvitationId, inv);
    if (!inv.masked) this.latestByTestEmail.set(invitationKey(inv.testId, inv.email), inv);
  }

  // ---- employees

  employee(employeeId: number): Employee | undefined {
    return this.employeesById.get(employeeId);
  }

  employeeByEmail(accountId: AccountId, email: string): Employee | undefined {
    return this.employeesByEmail.get(employeeEmailKey(accountId, email));
  }

  employeeByExternalId(accountId: AccountId, externalEmployeeId: string): Employee | undefined {
    return this.employeesByExternalId.get(`${accountId}\u0000${externalEmployeeId}`);
  }

  employeesOf(accountId: AccountId): Employee[] {
    return this.data.employees.filter((e) => e.accountId === accountId);
  }

  nextEmployeeId(): number {
    return this.data.counters.employee++;
  }

  addEmployee(emp: Employee): void {
    this.data.employees.push(emp);
    this.indexEmployee(emp);
  }

  /** Changes the identifying fields of an employee and keeps the indexes in step. */
  reidentifyEmployee(emp: Employee, email: string, externalEmployeeId: string | null): void {
    this.employeesByEmail.delete(employeeEmailKey(emp.accountId, emp.email));
    if (emp.externalEmployeeId !== null) {
      this.employeesByExternalId.delete(`${emp.accountId}\u0000${emp.externalEmployeeId}`);
    }
    emp.email = email;
    emp.externalEmployeeId = externalEmployeeId;
    this.indexEmployee(emp);
  }

  private indexEmployee(emp: Employee): void {
    this.employeesById.set(emp.employeeId, emp);
    this.employeesByEmail.set(employeeEmailKey(emp.accountId, emp.email), emp);
    if (emp.externalEmployeeId !== null) {
      this.employeesByExternalId.set(`${emp.accountId}\u0000${emp.externalEmployeeId}`, emp);
    }
  }

  // ---- users

  usersOf(accountId: AccountId): User[] {
    return this.data.users.filter((u) => u.accountId === accountId);
  }

  // ---- notifications

  logNotification(record: NotificationRecord): void {
    this.data.notifications.push(record);
    if (this.data.notifications.length > NOTIFICATION_LOG_LIMIT) this.data.notifications.shift();
  }
}
