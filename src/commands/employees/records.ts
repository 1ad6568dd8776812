/**
 * Reading employees and skills out of the service's answers. Its documentation shows none of these shapes, so
 * every field is looked up under the names it plausibly has, and anything unexpected is passed through
 * untouched.
 */
import { field } from "../../fields.js";
import type { Column, Row } from "../../output/output.js";

export interface Skill {
  skillName: string;
  category?: string;
  level?: number;
  proficiency?: string;
  /** Where the skill was seen: assessment, certificate, resume, ... */
  source?: string;
}

export function employeeName(row: Row): string | undefined {
  const full = text(field(row, "fullName")) ?? text(field(row, "name")) ?? text(field(row, "employeeName"));
  if (full) return full;
  const parts = [text(field(row, "firstName")), text(field(row, "lastName"))].filter(Boolean);
  return parts.length > 0 ? parts.join(" ") : undefined;
}

/** `Software Engineer II (SWE2)`, or whichever half the answer carries. */
export function jobOf(row: Row): string | undefined {
  const profile = record(field(row, "jobProfile"));
  const code = text(field(row, "jobCode")) ?? text(field(profile, "jobCode"));
  const title =
    text(field(row, "jobTitle")) ?? text(field(profile, "title")) ?? text(field(profile, "jobTitle"));
  if (title && code) return `${title} (${code})`;
  return title ?? code;
}

export function departmentOf(row: Row): string | undefined {
  return text(field(row, "department")) ?? text(field(field(row, "employeeHRMSInfo"), "department"));
}

/** The skills of a profile, normalised; an entry without a name is not a skill and is left out. */
export function skillsOf(row: Row): Skill[] {
  const list = [
    field(row, "skills"),
    field(field(row, "skillsProfile"), "skills"),
    field(row, "skillsProfile"),
    field(row, "skillProfile"),
    field(row, "employeeSkills"),
  ].find(Array.isArray) as unknown[] | undefined;
  const skills: Skill[] = [];
  for (const item of list ?? []) {
    const entry = record(item);
    // The real service nests the skill itself: `{"skill": {"skillName": …}, "selfValidationScore": 3}`.
    const skill = record(field(entry, "skill"));
    const skillName = entry
      ? (text(field(entry, "skillName")) ??
        text(field(entry, "name")) ??
        text(field(entry, "skill")) ??
        text(field(skill, "skillName")))
      : text(item);
    if (!skillName) continue;
    const sources = field(entry, "sources");
    skills.push({
      skillName,
      category:
        text(field(entry, "category")) ??
        text(field(entry, "skillCategory")) ??
        text(field(entry, "categoryName")) ??
        text(field(field(skill, "skillClassification"), "classificationName")),
      level: number(
        field(entry, "level") ??
          field(entry, "skillLevel") ??
          field(entry, "proficiencyLevel") ??
          field(entry, "weightedProficiencyScore"),
      ),
      proficiency: text(field(entry, "proficiency")) ?? text(field(entry, "proficiencyLabel")),
      source: Array.isArray(sources)
        ? sources.map(String).join(", ")
        : (text(field(entry, "source")) ?? text(field(entry, "skillSource"))),
    });
  }
  return skills;
}

/** The strongest skills first: `TypeScript (4), Node.js (3), SQL (2)`. */
export function topSkills(row: Row, count = 3): string | undefined {
  const skills = skillsOf(row).sort(
    (a, b) => (b.level ?? 0) - (a.level ?? 0) || a.skillName.localeCompare(b.skillName),
  );
  if (skills.length === 0) return undefined;
  const shown = skills.slice(0, count).map((s) => {
    const level = s.level ?? s.proficiency;
    return level === undefined ? s.skillName : `${s.skillName} (${level})`;
  });
  return skills.length > count ? `${shown.join(", ")} +${skills.length - count}` : shown.join(", ");
}

export const EMPLOYEE_COLUMNS: Column[] = [
  { key: "employeeId", header: "ID" },
  { key: "name", header: "NAME", get: employeeName },
  { key: "email", header: "EMAIL" },
  { key: "job", header: "JOB", get: jobOf },
  { key: "department", header: "DEPARTMENT", get: departmentOf },
  { key: "status", header: "STATUS" },
];

export const TOP_SKILLS_COLUMN: Column = {
  key: "topSkills",
  header: "TOP SKILLS",
  get: (row) => topSkills(row),
};

export const PROFILE_COLUMNS: Column[] = [
  ...EMPLOYEE_COLUMNS.filter((c) => c.key !== "status"),
  TOP_SKILLS_COLUMN,
];

export function text(value: unknown): string | undefined {
  if (typeof value === "string") return value.trim() === "" ? undefined : value;
  return typeof value === "number" ? String(value) : undefined;
}

export function number(value: unknown): number | undefined {
  if (typeof value === "number" && Number.isFinite(value)) return value;
  if (typeof value === "string" && value.trim() !== "" && Number.isFinite(Number(value)))
    return Number(value);
  return undefined;
}

export function record(value: unknown): Row | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Row) : undefined;
}
