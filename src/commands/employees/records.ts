/**
 * Employees and skills read out of the service's answers. Its documentation shows none of these shapes, so
 * each field is looked up under the names it plausibly has, and anything unexpected is passed through.
 */
import { field, isRecord, numberOf, text, textOf } from "../../fields.js";
import type { Column, Row } from "../../output/output.js";

/** The full name, else first and last name. */
function employeeName(row: Row): string | undefined {
  const parts = [textOf(row, "firstName"), textOf(row, "lastName")].filter(Boolean);
  return textOf(row, "fullName", "name", "employeeName") ?? (parts.join(" ") || undefined);
}

/** `Software Engineer II (SWE2)`, or whichever half the answer carries. */
export function jobOf(row: Row): string | undefined {
  const profile = field(row, "jobProfile");
  const code = textOf(row, "jobCode") ?? textOf(profile, "jobCode");
  const title = textOf(row, "jobTitle") ?? textOf(profile, "title", "jobTitle");
  return title && code ? `${title} (${code})` : (title ?? code);
}

function departmentOf(row: Row): string | undefined {
  return textOf(row, "department") ?? textOf(field(row, "employeeHRMSInfo"), "department");
}

/** The skills of a profile, normalised; an entry without a name is not a skill and is left out. */
export function skillsOf(row: Row) {
  const list = [
    field(row, "skills"),
    field(field(row, "skillsProfile"), "skills"),
    field(row, "skillsProfile"),
    field(row, "skillProfile"),
    field(row, "employeeSkills"),
    // A bare list answered: the API layer keeps an answer that is no record under `result`.
    field(row, "result"),
  ].find(Array.isArray) as unknown[] | undefined;
  return (list ?? []).flatMap((entry) => {
    // The real service nests the skill itself: `{"skill": {"skillName": …}, "selfValidationScore": 3}`.
    const skill = field(entry, "skill");
    const skillName = isRecord(entry)
      ? (textOf(entry, "skillName", "name", "skill") ?? textOf(skill, "skillName"))
      : text(entry);
    if (!skillName) return [];
    const sources = field(entry, "sources");
    return {
      skillName,
      category:
        textOf(entry, "category", "skillCategory", "categoryName") ??
        textOf(field(skill, "skillClassification"), "classificationName"),
      level: numberOf(entry, "level", "skillLevel", "proficiencyLevel", "weightedProficiencyScore"),
      proficiency: textOf(entry, "proficiency", "proficiencyLabel"),
      // Where the skill was seen: assessment, certificate, resume, ...
      source: Array.isArray(sources)
        ? sources.map(String).join(", ")
        : textOf(entry, "source", "skillSource"),
    };
  });
}

/** The end of a success message: `; skills inferred: SQL, Python`, or that none could be from `source`. */
export function inferredSkills(answer: Row, source: string): string {
  const skills = skillsOf(answer).map((s) => s.skillName);
  return skills.length > 0
    ? `; skills inferred: ${skills.join(", ")}`
    : `; no skills could be inferred from ${source}`;
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
  // The record's shape is not documented: its id may be named `id`.
  { key: "employeeId", header: "ID", get: (row) => textOf(row, "employeeId", "id") },
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

export const PROFILE_COLUMNS = [...EMPLOYEE_COLUMNS.filter((c) => c.key !== "status"), TOP_SKILLS_COLUMN];
