/**
 * Employee skills API (paths without /v3), per employee: skills profile, certificates, resume upload,
 * learning assignment and skill gap.
 */
import { createHash } from "node:crypto";
import { idParam, ok, ownedEmployee, type RouteContext } from "../context.js";
import { isoSeconds, parseIsoDateTime } from "../dates.js";
import { mergeSkills, skillsProfileView } from "../employee-views.js";
import { badRequest, statusError } from "../errors.js";
import type { Router } from "../router.js";
import { inferSkills, LEARNING_RESOURCES, printableText } from "../skills-catalog.js";
import type { Certificate, LearningAssignment } from "../state.js";
import { isPresent, nonEmptyString, Problems, requireObject } from "../validate.js";

export const MAX_RESUME_BYTES = 5 * 1024 * 1024;
/** Level credited for a skill evidenced by a certificate / named in a resume. */
const CERTIFICATE_LEVEL = 3;
const RESUME_LEVEL = 2;

function certificateView(c: Certificate, includeSkills: boolean) {
  const { skills, ...rest } = c;
  return includeSkills ? { ...rest, skills: skills.map((s) => ({ ...s })) } : rest;
}

function listCertificates(ctx: RouteContext) {
  const emp = ownedEmployee(ctx, idParam(ctx, "employeeId"));
  const flag = (ctx.query.get("includeSkills") ?? "").toLowerCase();
  const includeSkills = flag === "true" || flag === "1";
  const items = ctx.store.data.certificates
    .filter((c) => c.employeeId === emp.employeeId)
    .map((c) => certificateView(c, includeSkills));
  return ok({ items });
}

function addCertificate(ctx: RouteContext) {
  const emp = ownedEmployee(ctx, idParam(ctx, "employeeId"));
  const body = requireObject(ctx.json());
  const problems = new Problems();
  if (!nonEmptyString(body.title)) problems.add("title is required");
  const text: Record<string, string | null> = {};
  for (const field of ["issuer", "credentialUrl", "credentialId"] as const) {
    const value = body[field];
    if (!isPresent(value) || value === "") text[field] = null;
    else if (typeof value === "string") text[field] = value.trim();
    else problems.add(`${field} must be a string`);
  }
  const dates: Record<string, string | null> = {};
  for (const field of ["issueDate", "expiryDate"] as const) {
    const value = body[field];
    if (!isPresent(value) || value === "") dates[field] = null;
    else {
      const parsed = parseIsoDateTime(value);
      if (parsed) dates[field] = isoSeconds(parsed);
      else problems.add(`${field} must be a date or date-time`);
    }
  }
  if (dates.issueDate && dates.expiryDate && Date.parse(dates.expiryDate) < Date.parse(dates.issueDate)) {
    problems.add("expiryDate must not be before issueDate");
  }
  problems.throwIfAny();
  const title = (body.title as string).trim();
  const cert: Certificate = {
    certificateId: ctx.store.data.counters.certificate++,
    employeeId: emp.employeeId,
    title,
    issuer: text.issuer ?? null,
    issueDate: dates.issueDate ?? null,
    expiryDate: dates.expiryDate ?? null,
    credentialUrl: text.credentialUrl ?? null,
    credentialId: text.credentialId ?? null,
    skills: inferSkills(title, text.issuer),
    createdAt: isoSeconds(ctx.now),
  };
  ctx.store.data.certificates.push(cert);
  mergeSkills(emp, cert.skills, "certificate", CERTIFICATE_LEVEL, ctx.now);
  return ok(certificateView(cert, true), 201);
}

const RESUME_TYPES: Record<string, string> = {
  pdf: "application/pdf",
  doc: "application/msword",
  docx: "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
};

function uploadResume(ctx: RouteContext) {
  const emp = ownedEmployee(ctx, idParam(ctx, "EmployeeId"));
  const file = ctx.multipart().find((p) => p.name === "file" && p.filename !== undefined);
  if (!file) throw badRequest("A file part named 'file' is required");
  const fileName = file.filename ?? "";
  const ext = /\.([A-Za-z0-9]+)$/.exec(fileName)?.[1]?.toLowerCase() ?? "";
  const type = (file.contentType ?? "").toLowerCase().split(";")[0]!.trim();
  if (!(ext in RESUME_TYPES) && !Object.values(RESUME_TYPES).includes(type)) {
    throw statusError(415, "Unsupported resume file type: upload a PDF, DOC or DOCX file");
  }
  if (file.data.length > MAX_RESUME_BYTES) throw statusError(413, "The resume must not be larger than 5 MiB");
  if (file.data.length === 0) throw badRequest("The uploaded file is empty");
  const sha256 = createHash("sha256").update(file.data).digest("hex");
  const skills = inferSkills(printableText(file.data));
  mergeSkills(emp, skills, "resume", RESUME_LEVEL, ctx.now);
  ctx.store.data.resumes.push({
    employeeId: emp.employeeId,
    fileName,
    contentType: type || (RESUME_TYPES[ext] ?? "application/octet-stream"),
    size: file.data.length,
    sha256,
    skills,
    uploadedAt: isoSeconds(ctx.now),
  });
  return ok({ employeeId: emp.employeeId, fileName, size: file.data.length, sha256, skills });
}

function stringList(value: unknown): string[] {
  if (typeof value === "string" || typeof value === "number")
    return String(value).trim() ? [String(value).trim()] : [];
  if (!Array.isArray(value)) return [];
  return value
    .filter((v): v is string | number => typeof v === "string" || typeof v === "number")
    .map((v) => String(v).trim())
    .filter((v) => v !== "");
}

/** Accepts any object naming at least one resource (learningResourceIds) or skill (skills). */
function assignLearning(ctx: RouteContext) {
  const emp = ownedEmployee(ctx, idParam(ctx, "employeeId"));
  const body = requireObject(ctx.json());
  const resourceIds = [...stringList(body.learningResourceIds), ...stringList(body.learningResourceId)];
  const skills = [...stringList(body.skills), ...stringList(body.skillNames)];
  const problems = new Problems();
  if (resourceIds.length === 0 && skills.length === 0) {
    problems.add("Name at least one learning resource (learningResourceIds) or skill (skills)");
  }
  let dueDate: string | null = null;
  if (isPresent(body.dueDate) && body.dueDate !== "") {
    const parsed = parseIsoDateTime(body.dueDate);
    if (parsed) dueDate = body.dueDate as string;
    else problems.add("dueDate must be a date or date-time");
  }
  if (isPresent(body.note) && typeof body.note !== "string") problems.add("note must be a string");
  problems.throwIfAny();

  const assigned: LearningAssignment["assigned"] = [];
  for (const id of resourceIds) {
    const known = LEARNING_RESOURCES.find((r) => r.learningResourceId.toLowerCase() === id.toLowerCase());
    assigned.push({
      learningResourceId: known?.learningResourceId ?? id,
      title: known?.title ?? `Learning resource ${id}`,
      skillName: known?.skillName ?? null,
    });
  }
  for (const skill of skills) {
    const known = LEARNING_RESOURCES.find((r) => r.skillName.toLowerCase() === skill.toLowerCase());
    const slug = skill.toLowerCase().replace(/[^a-z0-9]+/g, "-");
    const id = known?.learningResourceId ?? `lr-path-${slug}`;
    // A resource named and also reached through its skill is assigned once.
    if (assigned.some((a) => a.learningResourceId.toLowerCase() === id.toLowerCase())) continue;
    assigned.push({
      learningResourceId: id,
      title: known?.title ?? `${skill} learning path`,
      skillName: known?.skillName ?? skill,
    });
  }
  const assignment: LearningAssignment = {
    assignmentId: ctx.store.data.counters.learningAssignment++,
    employeeId: emp.employeeId,
    assigned,
    dueDate,
    note: typeof body.note === "string" ? body.note : null,
    createdAt: isoSeconds(ctx.now),
  };
  ctx.store.data.learningAssignments.push(assignment);
  return ok(
    {
      assignmentId: assignment.assignmentId,
      employeeId: emp.employeeId,
      assigned: assigned.map((a) => ({ ...a })),
      dueDate,
      note: assignment.note,
      status: "Assigned",
    },
    201,
  );
}

function skillGap(ctx: RouteContext) {
  const emp = ownedEmployee(ctx, idParam(ctx, "employeeId"));
  const profile = ctx.store.data.jobProfiles.find((p) => p.jobCode === emp.jobCode);
  const gaps: Array<{ skillName: string; requiredLevel: number; currentLevel: number; gap: number }> = [];
  const matched: Array<{ skillName: string; requiredLevel: number; currentLevel: number }> = [];
  for (const req of profile?.skills ?? []) {
    const current =
      emp.skills.find((s) => s.skillName.toLowerCase() === req.skillName.toLowerCase())?.level ?? 0;
    if (current >= req.requiredLevel) {
      matched.push({ skillName: req.skillName, requiredLevel: req.requiredLevel, currentLevel: current });
    } else {
      gaps.push({
        skillName: req.skillName,
        requiredLevel: req.requiredLevel,
        currentLevel: current,
        gap: req.requiredLevel - current,
      });
    }
  }
  return ok({
    employeeId: emp.employeeId,
    jobCode: emp.jobCode,
    jobTitle: profile?.title ?? null,
    gaps,
    matched,
  });
}

export function registerEmployeeSkillRoutes(router: Router): void {
  router
    .add("GET", "/employees/:employeeId/skills-profile", (ctx) =>
      ok(skillsProfileView(ownedEmployee(ctx, idParam(ctx, "employeeId")), ctx.store.data.jobProfiles)),
    )
    .add("GET", "/employees/:employeeId/certificates", listCertificates)
    .add("POST", "/employees/:employeeId/certificates", addCertificate)
    .add("POST", "/employees/:EmployeeId/resume/upload", uploadResume)
    .add("POST", "/employees/:employeeId/learning/assign", assignLearning)
    .add("GET", "/employees/:employeeId/skill-gap", skillGap);
}
