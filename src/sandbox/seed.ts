/**
 * Deterministic demo data for the two accounts. Everything derives from a fixed PRNG seed and `now`, so a
 * sandbox started with the same clock holds the same data (no Math.random here).
 */

import type { FinalStatus } from "../spec/final-statuses.js";
import { SETTING_FLAGS } from "../spec/settings-flags.js";
import { DAY_MS, isoSeconds } from "./dates.js";
import type { AccountId } from "./keys.js";
import { intBetween, mulberry32, pick, type Rng } from "./prng.js";
import { scoreAttempt } from "./scoring.js";
import { categoryOf, inferSkills, JOB_PROFILES, proficiencyOf } from "./skills-catalog.js";
import type {
  Certificate,
  Employee,
  EmployeeSkill,
  EmployeeStatus,
  Invitation,
  InvitationStatus,
  SandboxState,
  SkillSource,
  Test,
  TestLink,
  TestSection,
  TestSettings,
  User,
} from "./state.js";
import { testUrlFor } from "./tokens.js";

const SEED = 0x5eed_a55e;

const FIRST_NAMES = (
  "Aisha Ben Carla Dmitri Elena Farid Grace Hiro Ines Jonas Kavya Liam Maya Noah Olivia Pedro " +
  "Quinn Rosa Samir Tara Umar Vera Wei Ximena Yusuf Zoe Arjun Beatriz Chen Daniela Emeka " +
  "Fatima Gustav Hannah Ivan Julia Kenji Lena Mateo Nadia Oscar Priya Rafael Sofia Tomás " +
  "Anika"
).split(" ");
const LAST_NAMES = (
  "Okafor Schmidt Rossi Ivanova Garcia Haddad Kim Tanaka Silva Berg Iyer Murphy Cohen " +
  "Williams Brown Santos Taylor Novak Khan Patel Ali Petrova Zhang Lopez Demir Martin Sharma " +
  "Costa Liu Fischer Adeyemi Rahman Larsen Meyer Popescu Nowak Sato Weber Moreno Haas " +
  "Andersson Reddy Dubois Ortega"
).split(" ");

interface TestSpec {
  testId: number;
  accountId: AccountId;
  testName: string;
  duration: number;
  labels: string[];
  sections: Array<
    [name: string, type: "MCQ" | "Coding" | "Subjective", questions: number, minutes: number, skill: string]
  >;
}

const TESTS: TestSpec[] = [
  {
    testId: 1001,
    accountId: "acme",
    testName: "JavaScript Fundamentals",
    duration: 60,
    labels: ["javascript", "frontend"],
    sections: [
      ["Language Basics", "MCQ", 12, 15, "JavaScript"],
      ["Functions and Scope", "MCQ", 10, 15, "JavaScript"],
      ["Asynchronous Programming", "MCQ", 8, 15, "Node.js"],
      ["Coding Challenge", "Coding", 2, 15, "Problem Solving"],
    ],
  },
  {
    testId: 1002,
    accountId: "acme",
    testName: "Python Developer",
    duration: 75,
    labels: ["python", "backend"],
    sections: [
      ["Python Basics", "MCQ", 12, 20, "Python"],
      ["Data Structures", "MCQ", 10, 20, "Algorithms"],
      ["Coding", "Coding", 3, 35, "Problem Solving"],
    ],
  },
  {
    testId: 1003,
    accountId: "acme",
    testName: "SQL for Analysts",
    duration: 45,
    labels: ["sql", "data"],
    sections: [
      ["Querying", "MCQ", 10, 15, "SQL"],
      ["Joins and Aggregation", "MCQ", 10, 15, "SQL"],
      ["Query Writing", "Coding", 2, 15, "Data Analysis"],
    ],
  },
  {
    testId: 1004,
    accountId: "acme",
    testName: "Customer Support English",
    duration: 40,
    labels: ["english", "support"],
    sections: [
      ["Grammar", "MCQ", 15, 10, "English"],
      ["Reading Comprehension", "MCQ", 10, 15, "English"],
      ["Written Response", "Subjective", 2, 15, "Communication"],
    ],
  },
  {
    testId: 1005,
    accountId: "acme",
    testName: "Data Analyst",
    duration: 90,
    labels: ["data", "excel", "statistics"],
    sections: [
      ["Statistics", "MCQ", 12, 20, "Statistics"],
      ["Spreadsheets", "MCQ", 10, 20, "Excel"],
      ["SQL", "Coding", 2, 25, "SQL"],
      ["Case Study", "Subjective", 1, 25, "Data Analysis"],
    ],
  },
  {
    testId: 2001,
    accountId: "globex",
    testName: "Java Backend",
    duration: 80,
    labels: ["java", "backend"],
    sections: [
      ["Core Java", "MCQ", 15, 25, "Java"],
      ["Spring Boot", "MCQ", 10, 20, "Spring Boot"],
      ["Coding", "Coding", 2, 35, "Problem Solving"],
    ],
  },
  {
    testId: 2002,
    accountId: "globex",
    testName: "Sales Aptitude",
    duration: 30,
    labels: ["sales", "aptitude"],
    sections: [
      ["Numerical Reasoning", "MCQ", 10, 15, "Numerical Reasoning"],
      ["Situational Judgement", "MCQ", 10, 15, "Sales"],
    ],
  },
];

const POINTS_PER_QUESTION = { MCQ: 1, Coding: 10, Subjective: 5 } as const;

function buildTest(spec: TestSpec, index: number): Test {
  const sections: TestSection[] = spec.sections.map(
    ([sectionName, sectionType, questions, duration, skill], i) => ({
      sectionId: spec.testId * 10 + i + 1,
      sectionName,
      sectionType,
      questions,
      duration,
      points: questions * POINTS_PER_QUESTION[sectionType],
      skill,
    }),
  );
  const flags = Object.fromEntries(SETTING_FLAGS.map((f) => [f, 0])) as Record<
    (typeof SETTING_FLAGS)[number],
    0 | 1
  >;
  // A believable mix of switched-on settings, different per test.
  flags.randomQuestions = 1;
  flags.randomAnswers = index % 2 === 0 ? 1 : 0;
  flags.sectionTimeLeftAlert = 1;
  flags.candidateFeedback = index % 3 === 0 ? 1 : 0;
  flags.copyPaste = spec.sections.some((s) => s[1] === "Coding") ? 1 : 0;
  flags.displayViolationPopUp = 1;
  flags.terminateTestOnWindowViolation = index % 2 === 0 ? 0 : 1;
  const settings: TestSettings = { testAliasName: spec.testName, typeOfTest: 1, ...flags };
  return {
    testId: spec.testId,
    accountId: spec.accountId,
    testName: spec.testName,
    status: "Active",
    duration: spec.duration,
    labels: spec.labels,
    sections,
    settings,
  };
}

function link(
  testLinkId: number,
  testId: number,
  testLinkName: string,
  token: string,
  fields: Partial<Pick<TestLink, "testLinkStatus" | "invitationType" | "isApiLink" | "stakeholderEmails">> & {
    proctoringMode?: TestLink["proctoringSettings"]["proctoringMode"];
    schedule: TestLink["invitationSchedule"];
  },
): TestLink {
  return {
    testLinkId,
    testId,
    testLinkName,
    testLink: `https://sandbox.assess.invalid/l/${token}`,
    testLinkStatus: fields.testLinkStatus ?? "active",
    invitationType: fields.invitationType ?? "email",
    isApiLink: fields.isApiLink ?? false,
    proctoringSettings: { proctoringMode: fields.proctoringMode ?? "disabled" },
    stakeholderEmails: fields.stakeholderEmails ?? null,
    invitationSchedule: fields.schedule,
  };
}

function validity(days: number, timeZoneId: number): TestLink["invitationSchedule"] {
  return {
    scheduleType: "validityindays",
    scheduleDetails: { invitationValidityInDays: days, startDateTime: null, endDateTime: null, timeZoneId },
  };
}

function window(
  scheduleType: "timebound" | "slotwise",
  start: Date,
  end: Date,
  timeZoneId: number,
): TestLink["invitationSchedule"] {
  return {
    scheduleType,
    scheduleDetails: {
      invitationValidityInDays: null,
      startDateTime: isoSeconds(start),
      endDateTime: isoSeconds(end),
      timeZoneId,
    },
  };
}

function hexToken(rng: Rng, length = 24): string {
  let s = "";
  while (s.length < length)
    s += Math.floor(rng() * 0x100000000)
      .toString(16)
      .padStart(8, "0");
  return s.slice(0, length);
}

function asciiFold(s: string): string {
  return s
    .normalize("NFD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase();
}

interface Person {
  first: string;
  last: string;
  email: string;
}

function makePeople(rng: Rng, count: number, domain: string, used: Set<string>): Person[] {
  const people: Person[] = [];
  while (people.length < count) {
    const first = pick(rng, FIRST_NAMES);
    const last = pick(rng, LAST_NAMES);
    let local = `${asciiFold(first)}.${asciiFold(last)}`;
    for (let n = 2; used.has(`${local}@${domain}`); n++) local = `${asciiFold(first)}.${asciiFold(last)}${n}`;
    used.add(`${local}@${domain}`);
    people.push({ first, last, email: `${local}@${domain}` });
  }
  return people;
}

function employeeSkills(rng: Rng, jobCode: string, at: string): EmployeeSkill[] {
  const profile = JOB_PROFILES.find((p) => p.jobCode === jobCode);
  const sources: SkillSource[] = ["assessment", "certificate", "resume", "self", "self", "assessment"];
  const skills: EmployeeSkill[] = [];
  for (const req of profile?.skills ?? []) {
    // Some expected skills are missing entirely, so skill gaps have something to show.
    if (rng() < 0.15) continue;
    const level = Math.min(5, Math.max(1, req.requiredLevel + intBetween(rng, -2, 1)));
    skills.push({
      skillName: req.skillName,
      category: categoryOf(req.skillName),
      level,
      proficiency: proficiencyOf(level),
      source: pick(rng, sources),
      updatedAt: at,
    });
  }
  const extras = ["Excel", "Communication", "Git", "Agile", "Python", "SQL", "English", "Docker"];
  for (let i = intBetween(rng, 0, 2); i > 0; i--) {
    const name = pick(rng, extras);
    if (skills.some((s) => s.skillName === name)) continue;
    const level = intBetween(rng, 1, 4);
    skills.push({
      skillName: name,
      category: categoryOf(name),
      level,
      proficiency: proficiencyOf(level),
      source: "self",
      updatedAt: at,
    });
  }
  return skills;
}

const DEPARTMENT_OF: Record<string, string> = {
  SWE1: "Engineering",
  SWE2: "Engineering",
  SWE3: "Engineering",
  QA1: "Engineering",
  DATA1: "Data",
  DATA2: "Data",
  SUP1: "Customer Support",
  SUP2: "Customer Support",
  PM1: "Product",
  JAVA2: "Engineering",
  SALES1: "Sales",
};

function makeEmployees(
  rng: Rng,
  accountId: AccountId,
  people: Person[],
  jobCodes: string[],
  firstId: number,
  prefix: string,
  now: Date,
): Employee[] {
  const locations = ["Berlin", "Austin", "Bangalore", "London", "Remote", "Toronto"];
  const statuses: EmployeeStatus[] = [
    "Active",
    "Active",
    "Active",
    "Active",
    "Active",
    "Active",
    "OnLeave",
    "Inactive",
  ];
  const managers = new Map<string, string>();
  return people.map((p, i) => {
    const jobCode = jobCodes[i % jobCodes.length] ?? null;
    const department = jobCode ? (DEPARTMENT_OF[jobCode] ?? "Operations") : "Operations";
    const manager = managers.get(department) ?? null;
    if (!manager) managers.set(department, p.email);
    const hired = new Date(now.getTime() - intBetween(rng, 60, 3000) * DAY_MS);
    hired.setUTCHours(9, 0, 0, 0);
    const status = i === people.length - 1 ? "Exited" : pick(rng, statuses);
    const at = isoSeconds(new Date(now.getTime() - intBetween(rng, 1, 120) * DAY_MS));
    return {
      employeeId: firstId + i,
      accountId,
      email: p.email,
      firstName: p.first,
      lastName: p.last,
      jobCode,
      status,
      externalEmployeeId: `${prefix}-${String(firstId + i).padStart(5, "0")}`,
      department,
      location: pick(rng, locations),
      managerEmail: manager,
      hireDate: isoSeconds(hired),
      exitDate: status === "Exited" ? isoSeconds(new Date(now.getTime() - 20 * DAY_MS)) : null,
      employmentType: rng() < 0.85 ? "FullTime" : "Contract",
      grade: `G${intBetween(rng, 3, 8)}`,
      band: `B${intBetween(rng, 1, 4)}`,
      customFieldWithValue: { costCenter: `CC-${intBetween(rng, 100, 140)}` },
      skills: jobCode ? employeeSkills(rng, jobCode, at) : [],
      createdAt: isoSeconds(hired),
      updatedAt: at,
    };
  });
}

interface SeedAttempt {
  accountId: AccountId;
  testId: number;
  person: Person;
  status: InvitationStatus;
  createdAt: Date;
  startedAt?: Date;
  completedAt?: Date;
  endDateTime?: Date;
}

function planAttempts(
  rng: Rng,
  now: Date,
  accountId: AccountId,
  testWeights: Array<[number, number]>,
  finishedCount: number,
  candidates: Person[],
  employees: Person[],
): SeedAttempt[] {
  const weighted: number[] = testWeights.flatMap(([testId, w]) => Array<number>(w).fill(testId));
  const plans: SeedAttempt[] = [];
  const person = (i: number) =>
    i < employees.length * 2 ? employees[i % employees.length]! : pick(rng, candidates);
  for (let i = 0; i < finishedCount; i++) {
    const r = rng();
    const status: FinalStatus = r < 0.8 ? "Complete" : r < 0.92 ? "TestLeft" : "Terminated";
    const completedAt = new Date(now.getTime() - Math.floor(rng() * 180 * DAY_MS) - 3_600_000);
    const startedAt = new Date(completedAt.getTime() - intBetween(rng, 15, 85) * 60_000);
    const createdAt = new Date(startedAt.getTime() - Math.floor(rng() * 5 * DAY_MS));
    plans.push({
      accountId,
      testId: pick(rng, weighted),
      person: person(i),
      status,
      createdAt,
      startedAt,
      completedAt,
    });
  }
  // A handful of not-yet-finished invitations so cancel, reattempt and re-invite have something to act on.
  const openStatuses: Array<[InvitationStatus, number]> = [
    ["Pending", Math.ceil(finishedCount / 14)],
    ["In Progress", Math.ceil(finishedCount / 60)],
    ["Cancelled", Math.ceil(finishedCount / 50)],
    ["Expired", Math.ceil(finishedCount / 50)],
  ];
  for (const [status, count] of openStatuses) {
    for (let i = 0; i < count; i++) {
      const createdAt = new Date(now.getTime() - intBetween(rng, 1, status === "Expired" ? 60 : 14) * DAY_MS);
      const plan: SeedAttempt = {
        accountId,
        testId: pick(rng, weighted),
        person: pick(rng, candidates),
        status,
        createdAt,
      };
      if (status === "Expired") plan.endDateTime = new Date(createdAt.getTime() + 7 * DAY_MS);
      if (status === "Pending") plan.endDateTime = new Date(now.getTime() + intBetween(rng, 7, 30) * DAY_MS);
      if (status === "In Progress")
        plan.startedAt = new Date(now.getTime() - intBetween(rng, 5, 40) * 60_000);
      plans.push(plan);
    }
  }
  return plans;
}

export function seedState(now: Date): SandboxState {
  const rng = mulberry32(SEED);
  const at = isoSeconds(now);
  const tests = TESTS.map(buildTest);
  const testById = new Map(tests.map((t) => [t.testId, t]));

  const days = (n: number) => new Date(now.getTime() + n * DAY_MS);
  const testLinks: TestLink[] = [
    link(3001, 1001, "Campus drive", hexToken(rng), { schedule: validity(7, 1720) }),
    link(3002, 1001, "Open practice link", hexToken(rng), {
      invitationType: "open",
      isApiLink: true,
      proctoringMode: "image",
      schedule: window("timebound", days(-30), days(60), 1720),
    }),
    link(3003, 1001, "Old referral link", hexToken(rng), {
      testLinkStatus: "inactive",
      schedule: window("slotwise", days(-120), days(-90), 1720),
    }),
    link(3004, 1002, "Backend hiring", hexToken(rng), {
      stakeholderEmails: "hiring@acme.example,cto@acme.example",
      schedule: validity(14, 1720),
    }),
    link(3005, 1002, "Careers page", hexToken(rng), {
      invitationType: "open",
      proctoringMode: "video",
      schedule: window("timebound", days(-10), days(80), 1720),
    }),
    link(3006, 2001, "Java hiring", hexToken(rng), { schedule: validity(10, 1720) }),
    link(3007, 2002, "Sales open day", hexToken(rng), {
      invitationType: "open",
      schedule: window("timebound", days(-5), days(25), 1720),
    }),
  ];

  const usedEmails = new Set<string>();
  const acmeStaff = makePeople(rng, 45, "acme.example", usedEmails);
  const globexStaff = makePeople(rng, 4, "globex.example", usedEmails);
  const acmeCandidates = makePeople(rng, 220, pick(rng, ["example.com", "example.org"]), usedEmails);
  const globexCandidates = makePeople(rng, 15, "example.net", usedEmails);

  const acmeJobs = ["SWE1", "SWE2", "SWE3", "DATA1", "DATA2", "SUP1", "SUP2", "QA1", "PM1"];
  const employees = [
    ...makeEmployees(rng, "acme", acmeStaff, acmeJobs, 501, "ACM", now),
    ...makeEmployees(rng, "globex", globexStaff, ["JAVA2", "SALES1"], 501 + acmeStaff.length, "GLX", now),
  ];

  const plans = [
    ...planAttempts(
      rng,
      now,
      "acme",
      [
        [1001, 30],
        [1002, 25],
        [1003, 20],
        [1004, 15],
        [1005, 10],
      ],
      300,
      acmeCandidates,
      acmeStaff.slice(0, 15),
    ),
    ...planAttempts(
      rng,
      now,
      "globex",
      [
        [2001, 60],
        [2002, 40],
      ],
      12,
      globexCandidates,
      globexStaff.slice(0, 2),
    ),
  ].sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime());

  // Ids grow with creation time, as they would on a real service.
  let nextInvitationId = 100001;
  const invitations: Invitation[] = plans.map((p) => {
    const id = nextInvitationId++;
    const test = testById.get(p.testId)!;
    const inv: Invitation = {
      testInvitationId: id,
      accountId: p.accountId,
      testId: p.testId,
      email: p.person.email,
      name: `${p.person.first} ${p.person.last}`,
      status: p.status,
      invitationType: "app",
      channel: "seed",
      testUrl: testUrlFor(hexToken(rng, 32)),
      createdAt: isoSeconds(p.createdAt),
    };
    if (p.endDateTime) inv.endDateTime = isoSeconds(p.endDateTime);
    if (p.startedAt) inv.startedAt = isoSeconds(p.startedAt);
    if (p.completedAt && (p.status === "Complete" || p.status === "TestLeft" || p.status === "Terminated")) {
      inv.completedAt = isoSeconds(p.completedAt);
      inv.result = scoreAttempt(test, p.status, rng);
    }
    return inv;
  });

  const users: User[] = [
    user("acme", "admin@acme.example", "Alex Admin", 10, "Admin", at),
    user("acme", "priya.recruiter@acme.example", "Priya Raman", 11, "Reviewer", at),
    user("acme", "tom.reviewer@acme.example", "Tom Becker", 12, "Reviewer", at),
    {
      ...user("acme", "former.reviewer@acme.example", "Fiona Former", 10, "Reviewer", at),
      status: "Inactive",
    },
    user("globex", "admin@globex.example", "Gia Admin", 20, "Admin", at),
  ];

  const certificates: Certificate[] = [];
  const certTitles: Array<[string, string]> = [
    ["AWS Certified Solutions Architect – Associate", "Amazon Web Services"],
    ["Certified Kubernetes Application Developer (CKAD)", "The Linux Foundation"],
    ["Professional Scrum Master I", "Scrum.org"],
    ["Microsoft Certified: Azure Fundamentals", "Microsoft"],
    ["PCAP – Certified Associate in Python Programming", "Python Institute"],
    ["Salesforce Certified Administrator", "Salesforce"],
    ["Tableau Desktop Specialist", "Tableau"],
    ["ITIL 4 Foundation", "AXELOS"],
  ];
  let nextCertificateId = 7001;
  for (const emp of employees.filter((e) => e.accountId === "acme").slice(0, 16)) {
    if (rng() < 0.45) continue;
    const [title, issuer] = pick(rng, certTitles);
    const issued = new Date(now.getTime() - intBetween(rng, 30, 900) * DAY_MS);
    certificates.push({
      certificateId: nextCertificateId++,
      employeeId: emp.employeeId,
      title,
      issuer,
      issueDate: isoSeconds(issued),
      expiryDate: isoSeconds(new Date(issued.getTime() + 3 * 365 * DAY_MS)),
      credentialUrl: null,
      credentialId: `CRED-${hexToken(rng, 8).toUpperCase()}`,
      skills: inferSkills(title, issuer),
      createdAt: isoSeconds(issued),
    });
  }

  return {
    version: 1,
    seededAt: at,
    counters: {
      invitation: nextInvitationId,
      testLink: 3008,
      employee: 501 + employees.length,
      certificate: nextCertificateId,
      learningAssignment: 9001,
    },
    accounts: [
      {
        accountId: "acme",
        name: "Acme Corporation",
        defaultBusinessUnitId: 10,
        businessUnits: [
          { businessunitId: 10, name: "Headquarters", isDefault: true },
          { businessunitId: 11, name: "Engineering", isDefault: false },
          { businessunitId: 12, name: "Customer Success", isDefault: false },
        ],
      },
      {
        accountId: "globex",
        name: "Globex Inc.",
        defaultBusinessUnitId: 20,
        businessUnits: [{ businessunitId: 20, name: "Globex HQ", isDefault: true }],
      },
    ],
    tests,
    testLinks,
    invitations,
    users,
    jobProfiles: JOB_PROFILES.map((p) => ({ ...p, skills: p.skills.map((s) => ({ ...s })) })),
    employees,
    certificates,
    learningAssignments: [],
    resumes: [],
    gdprRequests: [],
    notifications: [],
  };
}

function user(
  accountId: AccountId,
  email: string,
  fullName: string,
  businessunitId: number,
  role: string,
  createdAt: string,
): User {
  return { accountId, email, fullName, businessunitId, status: "Active", role, createdAt };
}
