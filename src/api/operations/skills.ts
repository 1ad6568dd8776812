/** The employee-skills API's operations ({skills_base_url}, no version segment): records of the table (index.ts). */
import { MAX_UPSERT_EMPLOYEES } from "../../spec/limits.js";
import { type Answer, read, readList } from "../read.js";
import * as s from "../schemas.js";
import {
  AnyRecord,
  asRecord,
  type Fields,
  type OperationRecord,
  op,
  paged,
  query,
  readRecord,
} from "./record.js";

export const SKILLS = {
  listEmployees: op("GET /employees", "employees.list", {
    summary: "List employees",
    description: "One page of the account's employees, with their profile, organisation and job details.",
    effect: "read",
    ...paged("PageNumber", "PageSize", AnyRecord, ["employees"], "employees"),
    response: "SkillsPage",
  }),
  getSkillsProfile: op("GET /employees/{employeeId}/skills-profile", "employees.skillsProfile", {
    summary: "Get an employee's skills profile",
    description: "An employee's complete skills profile: each skill and its level.",
    effect: "read",
    read: (answer: Answer): Fields => readRecord(answer, "skills profile"),
    response: "Record",
  }),
  upsertEmployees: op("POST /employees/upsert", "employees.upsert", {
    summary: "Create or update up to 100 employees",
    description: "Creates or updates up to 100 employees by e-mail in one request.",
    effect: "overwrite",
    limits: { items: MAX_UPSERT_EMPLOYEES },
    request: "UpsertBody",
    response: "UpsertResult",
    alsoText: true,
  }),
  listCertificates: op("GET /employees/{employeeId}/certificates", "employees.certificates.list", {
    summary: "List an employee's certificates",
    description: "The certificates stored of an employee, with their skills if asked.",
    effect: "read",
    query: [query("includeSkills", { type: "boolean" }, "include the skills related to each certificate")],
    read: (answer: Answer): Fields[] => readList(AnyRecord, answer, ["certificates"], "certificates"),
    response: "CertificateList",
  }),
  setEmployeeStatus: op("PATCH /employees/{employeeId}/status", "employees.setStatus", {
    summary: "Change an employee's status",
    description: "Changes an employee's status (active or inactive).",
    effect: "overwrite",
    body: "fields",
    read: (answer: Answer): Fields => asRecord(answer.data),
    request: "EmployeeStatusBody",
    response: "Record",
  }),
  getEmployeeReport: op("GET /employees/{employeeId}/reports/{testId}", "employees.report", {
    summary: "Get an employee's latest completed report of a test",
    description: "An employee's latest completed report of a test.",
    effect: "read",
    read: (answer: Answer): s.Report => read(s.Report, answer, "report"),
    response: "Report",
  }),
  addCertificate: op("POST /employees/{employeeId}/certificates", "employees.certificates.add", {
    summary: "Store a certificate of an employee",
    description: "Stores a certificate of an employee (title, issuer, date).",
    effect: "add",
    body: "fields",
    read: (answer: Answer): Fields => asRecord(answer.data),
    request: "Certificate",
    response: "Record",
  }),
  uploadResume: op("POST /employees/{EmployeeId}/resume/upload", "employees.uploadResume", {
    summary: "Upload an employee's resume (PDF, DOC or DOCX)",
    description: "Uploads an employee's résumé (PDF, DOC or DOCX) as a multipart form.",
    effect: "overwrite",
    read: (answer: Answer): Fields => asRecord(answer.data),
    request: {
      contentType: "multipart/form-data",
      schema: {
        type: "object",
        properties: { file: { type: "string", contentMediaType: "application/octet-stream" } },
        required: ["file"],
      },
      description: "the resume, as the form field `file`",
    },
    response: "Record",
  }),
  listSkillsProfiles: op("GET /employees/skills-profile", "employees.skillsProfiles.list", {
    summary: "List employees with their skills profiles",
    description: "One page of employees with their skills profiles.",
    effect: "read",
    ...paged("PageNumber", "PageSize", AnyRecord, ["employees", "skillsProfiles"], "skills profiles"),
    response: "SkillsPage",
  }),
  assignLearning: op("POST /employees/{employeeId}/learning/assign", "employees.assignLearning", {
    summary: "Assign learning to an employee",
    description: "Assigns learning (resources or skills, and a due date) to an employee.",
    effect: "add",
    body: "fields",
    read: (answer: Answer): Fields => asRecord(answer.data),
    request: "LearningBody",
    response: "Record",
  }),
  getSkillGap: op("GET /employees/{employeeId}/skill-gap", "employees.skillGap", {
    summary: "Get an employee's skill gap",
    description: "An employee's skill gap: the skills they lack for their job profile.",
    effect: "read",
    read: (answer: Answer): Fields => readRecord(answer, "skill gap"),
    response: "Record",
  }),
} as const satisfies Record<string, OperationRecord>;
