/** Skills vocabulary: categories, proficiency labels, keyword inference, job profiles and learning resources. */
import type { InferredSkill, JobProfile } from "./state.js";

const CATEGORIES: Record<string, string> = {
  AWS: "Cloud Computing",
  Azure: "Cloud Computing",
  "Google Cloud": "Cloud Computing",
  "Cloud Computing": "Cloud Computing",
  Kubernetes: "DevOps",
  Docker: "DevOps",
  Terraform: "DevOps",
  Linux: "DevOps",
  Git: "DevOps",
  Python: "Programming",
  Java: "Programming",
  JavaScript: "Programming",
  TypeScript: "Programming",
  "Node.js": "Programming",
  React: "Programming",
  "Spring Boot": "Programming",
  SQL: "Data",
  Excel: "Data",
  Tableau: "Data",
  "Power BI": "Data",
  Statistics: "Data",
  "Data Analysis": "Data",
  "Data Visualization": "Data",
  "Data Modeling": "Data",
  "Machine Learning": "Data",
  Testing: "Quality",
  "Test Automation": "Quality",
  "System Design": "Architecture",
  Networking: "Infrastructure",
  Cybersecurity: "Security",
  Scrum: "Project Management",
  Agile: "Project Management",
  "Project Management": "Project Management",
  "Product Management": "Product",
  "IT Service Management": "Operations",
  Salesforce: "CRM",
  "Customer Support": "Customer Service",
  Communication: "Soft Skills",
  Coaching: "Soft Skills",
  Mentoring: "Soft Skills",
  English: "Language",
  Sales: "Sales",
  "Numerical Reasoning": "Aptitude",
};

export function categoryOf(skillName: string): string {
  return CATEGORIES[skillName] ?? "General";
}

const PROFICIENCY = ["", "Beginner", "Elementary", "Intermediate", "Advanced", "Expert"];

export function proficiencyOf(level: number): string {
  return PROFICIENCY[Math.min(5, Math.max(1, Math.round(level)))] ?? "Beginner";
}

/** Keyword → skills. Order matters only for the order of the inferred list. */
const KEYWORDS: Array<{ pattern: RegExp; skills: string[] }> = [
  { pattern: /\baws\b|amazon web services/i, skills: ["Cloud Computing", "AWS"] },
  { pattern: /\bazure\b/i, skills: ["Cloud Computing", "Azure"] },
  { pattern: /\bgcp\b|google cloud/i, skills: ["Cloud Computing", "Google Cloud"] },
  { pattern: /kubernetes|\bk8s\b|\bcka\b|\bckad\b/i, skills: ["Kubernetes"] },
  { pattern: /\bdocker\b/i, skills: ["Docker"] },
  { pattern: /terraform/i, skills: ["Terraform"] },
  // "The Linux Foundation" issues Kubernetes certificates: the issuer name is no Linux skill.
  { pattern: /\blinux\b(?! foundation)|\brhce\b|\brhcsa\b/i, skills: ["Linux"] },
  { pattern: /\bpython\b|\bpcep\b|\bpcap\b/i, skills: ["Python"] },
  { pattern: /\bjava\b(?!\s*script)|\boracle certified\b|\bocp\b/i, skills: ["Java"] },
  { pattern: /javascript|\becmascript\b/i, skills: ["JavaScript"] },
  { pattern: /typescript/i, skills: ["TypeScript"] },
  { pattern: /node\.?js/i, skills: ["Node.js"] },
  { pattern: /\breact\b/i, skills: ["React"] },
  { pattern: /spring boot/i, skills: ["Spring Boot"] },
  { pattern: /\bsql\b|postgres|mysql|database/i, skills: ["SQL"] },
  { pattern: /\bexcel\b/i, skills: ["Excel"] },
  { pattern: /tableau/i, skills: ["Tableau"] },
  { pattern: /power ?bi/i, skills: ["Power BI"] },
  { pattern: /machine learning|\bml\b|tensorflow/i, skills: ["Machine Learning"] },
  { pattern: /data analy/i, skills: ["Data Analysis"] },
  { pattern: /statistic/i, skills: ["Statistics"] },
  { pattern: /\bistqb\b|software testing|\bqa\b/i, skills: ["Testing"] },
  { pattern: /selenium|cypress|playwright|test automation/i, skills: ["Test Automation"] },
  { pattern: /\bccna\b|\bccnp\b|cisco|networking/i, skills: ["Networking"] },
  { pattern: /security\+|\bcissp\b|\bcism\b|cyber ?security/i, skills: ["Cybersecurity"] },
  { pattern: /scrum|\bcsm\b|\bpsm\b/i, skills: ["Scrum", "Agile"] },
  { pattern: /\bagile\b|\bsafe\b/i, skills: ["Agile"] },
  { pattern: /\bpmp\b|prince2|project management/i, skills: ["Project Management"] },
  { pattern: /product management|product owner|\bcspo\b/i, skills: ["Product Management"] },
  { pattern: /\bitil\b/i, skills: ["IT Service Management"] },
  { pattern: /salesforce/i, skills: ["Salesforce"] },
  { pattern: /customer (?:service|support|success)|zendesk/i, skills: ["Customer Support"] },
  { pattern: /communication/i, skills: ["Communication"] },
  { pattern: /\btoefl\b|\bielts\b|cambridge english/i, skills: ["English"] },
];

/** Skills a certificate's title/issuer or a resume's text mention, each once, in table order. */
export function inferSkills(...texts: Array<string | null | undefined>): InferredSkill[] {
  const text = texts.filter((t): t is string => typeof t === "string").join(" \n ");
  const seen = new Set<string>();
  const out: InferredSkill[] = [];
  for (const { pattern, skills } of KEYWORDS) {
    if (!pattern.test(text)) continue;
    for (const skillName of skills) {
      if (seen.has(skillName)) continue;
      seen.add(skillName);
      out.push({ skillName, category: categoryOf(skillName) });
    }
  }
  return out;
}

/** Runs of printable ASCII in a binary file: enough to find keywords in a plain PDF or DOC. */
export function printableText(bytes: Buffer): string {
  const runs: string[] = [];
  let start = -1;
  for (let i = 0; i <= bytes.length; i++) {
    const b = i < bytes.length ? bytes[i]! : 0;
    const printable = (b >= 0x20 && b < 0x7f) || b === 0x09 || b === 0x0a || b === 0x0d;
    if (printable) {
      if (start < 0) start = i;
    } else if (start >= 0) {
      if (i - start >= 3) runs.push(bytes.toString("latin1", start, i));
      start = -1;
    }
  }
  return runs.join(" ");
}

export const JOB_PROFILES: JobProfile[] = [
  {
    jobCode: "SWE1",
    title: "Software Engineer I",
    skills: [
      { skillName: "JavaScript", requiredLevel: 2 },
      { skillName: "Git", requiredLevel: 2 },
      { skillName: "SQL", requiredLevel: 1 },
      { skillName: "Testing", requiredLevel: 2 },
    ],
  },
  {
    jobCode: "SWE2",
    title: "Software Engineer II",
    skills: [
      { skillName: "JavaScript", requiredLevel: 3 },
      { skillName: "TypeScript", requiredLevel: 3 },
      { skillName: "Node.js", requiredLevel: 3 },
      { skillName: "SQL", requiredLevel: 2 },
      { skillName: "AWS", requiredLevel: 2 },
      { skillName: "Testing", requiredLevel: 3 },
    ],
  },
  {
    jobCode: "SWE3",
    title: "Senior Software Engineer",
    skills: [
      { skillName: "JavaScript", requiredLevel: 4 },
      { skillName: "TypeScript", requiredLevel: 4 },
      { skillName: "System Design", requiredLevel: 4 },
      { skillName: "AWS", requiredLevel: 3 },
      { skillName: "Kubernetes", requiredLevel: 3 },
      { skillName: "Mentoring", requiredLevel: 3 },
    ],
  },
  {
    jobCode: "DATA1",
    title: "Data Analyst",
    skills: [
      { skillName: "SQL", requiredLevel: 3 },
      { skillName: "Excel", requiredLevel: 3 },
      { skillName: "Python", requiredLevel: 2 },
      { skillName: "Data Visualization", requiredLevel: 3 },
      { skillName: "Statistics", requiredLevel: 2 },
    ],
  },
  {
    jobCode: "DATA2",
    title: "Senior Data Analyst",
    skills: [
      { skillName: "SQL", requiredLevel: 4 },
      { skillName: "Python", requiredLevel: 3 },
      { skillName: "Statistics", requiredLevel: 4 },
      { skillName: "Tableau", requiredLevel: 3 },
      { skillName: "Data Modeling", requiredLevel: 3 },
    ],
  },
  {
    jobCode: "SUP1",
    title: "Customer Support Associate",
    skills: [
      { skillName: "Customer Support", requiredLevel: 3 },
      { skillName: "Communication", requiredLevel: 3 },
      { skillName: "English", requiredLevel: 3 },
      { skillName: "Salesforce", requiredLevel: 2 },
    ],
  },
  {
    jobCode: "SUP2",
    title: "Customer Support Lead",
    skills: [
      { skillName: "Customer Support", requiredLevel: 4 },
      { skillName: "Communication", requiredLevel: 4 },
      { skillName: "Coaching", requiredLevel: 3 },
      { skillName: "Salesforce", requiredLevel: 3 },
    ],
  },
  {
    jobCode: "QA1",
    title: "QA Engineer",
    skills: [
      { skillName: "Testing", requiredLevel: 3 },
      { skillName: "Test Automation", requiredLevel: 3 },
      { skillName: "JavaScript", requiredLevel: 2 },
      { skillName: "SQL", requiredLevel: 2 },
    ],
  },
  {
    jobCode: "PM1",
    title: "Product Manager",
    skills: [
      { skillName: "Product Management", requiredLevel: 3 },
      { skillName: "Scrum", requiredLevel: 3 },
      { skillName: "Communication", requiredLevel: 4 },
      { skillName: "Data Analysis", requiredLevel: 2 },
    ],
  },
  {
    jobCode: "JAVA2",
    title: "Java Backend Engineer",
    skills: [
      { skillName: "Java", requiredLevel: 3 },
      { skillName: "Spring Boot", requiredLevel: 3 },
      { skillName: "SQL", requiredLevel: 2 },
      { skillName: "Docker", requiredLevel: 2 },
    ],
  },
  {
    jobCode: "SALES1",
    title: "Account Executive",
    skills: [
      { skillName: "Sales", requiredLevel: 3 },
      { skillName: "Communication", requiredLevel: 3 },
      { skillName: "Salesforce", requiredLevel: 2 },
    ],
  },
];

export const LEARNING_RESOURCES: Array<{ learningResourceId: string; title: string; skillName: string }> = [
  { learningResourceId: "lr-101", title: "Python for Data Analysis", skillName: "Python" },
  { learningResourceId: "lr-102", title: "AWS Cloud Practitioner Essentials", skillName: "AWS" },
  { learningResourceId: "lr-103", title: "Kubernetes from Scratch", skillName: "Kubernetes" },
  { learningResourceId: "lr-104", title: "Advanced SQL: Window Functions", skillName: "SQL" },
  { learningResourceId: "lr-105", title: "TypeScript in Depth", skillName: "TypeScript" },
  { learningResourceId: "lr-106", title: "Statistics for Analysts", skillName: "Statistics" },
  { learningResourceId: "lr-107", title: "Scrum Fundamentals", skillName: "Scrum" },
  {
    learningResourceId: "lr-108",
    title: "Handling Difficult Customer Conversations",
    skillName: "Customer Support",
  },
  { learningResourceId: "lr-109", title: "System Design Interviews and Beyond", skillName: "System Design" },
  { learningResourceId: "lr-110", title: "Test Automation with Playwright", skillName: "Test Automation" },
  { learningResourceId: "lr-111", title: "Data Visualization with Tableau", skillName: "Tableau" },
  { learningResourceId: "lr-112", title: "Salesforce Admin Basics", skillName: "Salesforce" },
];
