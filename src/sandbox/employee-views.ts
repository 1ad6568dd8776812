/** How employees and their skills appear in answers of the skills API, and the skill-merge rule. */
import { isoSeconds } from "./dates.js";
import { proficiencyOf } from "./skills-catalog.js";
import type { Employee, EmployeeSkill, InferredSkill, JobProfile, SkillSource } from "./state.js";

export function employeeView(e: Employee, profiles: JobProfile[]) {
  return {
    employeeId: e.employeeId,
    email: e.email,
    firstName: e.firstName,
    lastName: e.lastName,
    jobCode: e.jobCode,
    jobTitle: profiles.find((p) => p.jobCode === e.jobCode)?.title ?? null,
    status: e.status,
    externalEmployeeId: e.externalEmployeeId,
    department: e.department,
    location: e.location,
    managerEmail: e.managerEmail,
    hireDate: e.hireDate,
    exitDate: e.exitDate,
    employmentType: e.employmentType,
    grade: e.grade,
    band: e.band,
    customFieldWithValue: { ...e.customFieldWithValue },
  };
}

export function skillsProfileView(e: Employee, profiles: JobProfile[]) {
  return {
    ...employeeView(e, profiles),
    skills: e.skills.map((s) => ({ ...s })),
    updatedAt: e.updatedAt,
  };
}

/** Stronger evidence wins the `source` of a skill: an assessment beats a certificate beats a resume beats self. */
const SOURCE_RANK: Record<SkillSource, number> = { self: 1, resume: 2, certificate: 3, assessment: 4 };

export function mergeSkills(
  emp: Employee,
  skills: InferredSkill[],
  source: SkillSource,
  level: number,
  now: Date,
): void {
  const at = isoSeconds(now);
  for (const inferred of skills) {
    const existing = emp.skills.find((s) => s.skillName.toLowerCase() === inferred.skillName.toLowerCase());
    if (!existing) {
      const added: EmployeeSkill = {
        skillName: inferred.skillName,
        category: inferred.category,
        level,
        proficiency: proficiencyOf(level),
        source,
        updatedAt: at,
      };
      emp.skills.push(added);
      continue;
    }
    if (level > existing.level) {
      existing.level = level;
      existing.proficiency = proficiencyOf(level);
    }
    if (SOURCE_RANK[source] > SOURCE_RANK[existing.source]) existing.source = source;
    existing.updatedAt = at;
  }
  if (skills.length > 0) emp.updatedAt = at;
}
