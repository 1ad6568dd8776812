import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { SANDBOX_KEYS, useTestEnv } from "../helpers/cli.js";

const t = useTestEnv();

const employee = (id: number) => t.sandbox.state.employees.find((e) => e.employeeId === id)!;
const sentSince = (before: number) => t.sandbox.requests.slice(before);

describe("employees skills", () => {
  it("GETs /employees/{id}/skills-profile and prints one row per skill, grouped by category", async () => {
    const before = t.sandbox.requests.length;
    const r = await t.run(["employees", "skills", "502"]);
    expect(r.code).toBe(0);
    expect(sentSince(before)).toMatchObject([
      { method: "GET", path: "/employees/502/skills-profile", api: "skills" },
    ]);
    expect(sentSince(before)[0]?.rawUrl).toBe("/skills/employees/502/skills-profile");
    const [header, ...rows] = r.stdout.trim().split("\n");
    expect(header).toBe("EMPLOYEE\tCATEGORY\tSKILL\tLEVEL\tPROFICIENCY\tSOURCE");
    const skills = employee(502).skills;
    expect(rows).toHaveLength(skills.length);
    for (const s of skills)
      expect(rows).toContain(`502\t${s.category}\t${s.skillName}\t${s.level}\t${s.proficiency}\t${s.source}`);
    const categories = rows.map((row) => row.split("\t")[1]!);
    expect(categories).toEqual([...categories].sort((a, b) => a.localeCompare(b)));
  });

  it("on a terminal: the employee, then the skills with each category named once", async () => {
    const r = await t.run(["employees", "skills", "502"], { tty: true });
    const emp = employee(502);
    expect(r.stdout).toContain(`${emp.firstName} ${emp.lastName}`);
    expect(r.stdout).toMatch(/CATEGORY\s*│\s*SKILL\s*│\s*LEVEL\s*│\s*PROFICIENCY\s*│\s*SOURCE/);
    for (const category of new Set(emp.skills.map((s) => s.category))) {
      expect(r.stdout.split(`│ ${category} `).length - 1).toBe(1);
    }
  });

  it("--json prints the service's object as is", async () => {
    const r = await t.run(["employees", "skills", "502", "--json"]);
    const profile = r.json<{ employeeId: number; skills: Array<{ skillName: string; source: string }> }>();
    expect(profile.employeeId).toBe(502);
    expect(profile.skills.map((s) => s.skillName).sort()).toEqual(
      employee(502)
        .skills.map((s) => s.skillName)
        .sort(),
    );
  });

  it("an unknown employee: the service's 404 reaches the user, exit 1, with a hint", async () => {
    const r = await t.run(["employees", "skills", "99999"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("Employee not found");
    expect(r.stderr).toContain("assess employees list");
    expect(r.stdout).toBe("");
    const json = await t.run(["employees", "skills", "99999", "--json"]);
    expect(json.code).toBe(1);
    expect(json.stderr).toContain('{"error":{"status":404,"messages":["Employee not found"]}}');
  });

  it("another account's employee is not found either", async () => {
    const globex = t.sandbox.state.employees.find((e) => e.accountId === "globex")!;
    const r = await t.run(["employees", "skill-gap", String(globex.employeeId)]);
    expect(r.code).toBe(1);
    const own = await t.run(["employees", "skill-gap", String(globex.employeeId)], {
      env: { ASSESS_API_KEY: SANDBOX_KEYS.globex },
    });
    expect(own.code).toBe(0);
  });

  it("a bad id is a usage error and nothing is sent", async () => {
    const before = t.sandbox.requests.length;
    const r = await t.run(["employees", "skills", "abc"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('employeeId must be a positive whole number, got "abc"');
    expect(sentSince(before)).toHaveLength(0);
  });
});

describe("employees certificates and add-certificate", () => {
  it("lists certificates; --with-skills sends includeSkills=true and shows the inferred skills", async () => {
    const owner = t.sandbox.state.certificates[0]!.employeeId;
    const before = t.sandbox.requests.length;
    const plain = await t.run(["employees", "certificates", String(owner)]);
    expect(plain.code).toBe(0);
    expect(plain.stdout.split("\n")[0]).toBe("ID\tTITLE\tISSUER\tISSUED\tEXPIRES");
    const withSkills = await t.run(["employees", "certificates", String(owner), "--with-skills"]);
    expect(withSkills.stdout.split("\n")[0]).toBe("ID\tTITLE\tISSUER\tISSUED\tEXPIRES\tSKILLS");
    const [first, second] = sentSince(before);
    expect(first).toMatchObject({ method: "GET", path: `/employees/${owner}/certificates`, query: {} });
    expect(second).toMatchObject({
      method: "GET",
      path: `/employees/${owner}/certificates`,
      query: { includeSkills: "true" },
    });
    const cert = t.sandbox.state.certificates[0]!;
    expect(withSkills.stdout).toContain(cert.skills.map((s) => s.skillName).join(", "));
  });

  it("POSTs the flags as JSON; the service infers skills from title and issuer, and the profile shows them", async () => {
    const before = t.sandbox.requests.length;
    const r = await t.run([
      "employees",
      "add-certificate",
      "510",
      "--title",
      "Certified Kubernetes Administrator",
      "--issuer",
      "Cloud Native Computing Foundation",
      "--issue-date",
      "2025-03-01",
      "--expiry-date",
      "2028-03-01",
      "--credential-url",
      "https://www.credly.com/badges/abc",
      "--json",
    ]);
    expect(r.code).toBe(0);
    const [req] = sentSince(before);
    expect(req).toMatchObject({ method: "POST", path: "/employees/510/certificates", api: "skills" });
    expect(req?.headers["content-type"]).toBe("application/json");
    expect(req?.headers["x-api-key"]).toBe(SANDBOX_KEYS.acme);
    expect(req?.body).toEqual({
      title: "Certified Kubernetes Administrator",
      issuer: "Cloud Native Computing Foundation",
      issueDate: "2025-03-01T00:00:00Z",
      expiryDate: "2028-03-01T23:59:59Z",
      credentialUrl: "https://www.credly.com/badges/abc",
    });
    const cert = r.json<{ certificateId: number; skills: Array<{ skillName: string }> }>();
    expect(cert.skills.map((s) => s.skillName)).toContain("Kubernetes");
    expect(r.stderr).toMatch(/Stored certificate \d+ for employee 510; skills inferred: .*Kubernetes/);

    const profile = await t.run(["employees", "skills", "510", "--json"]);
    const kube = profile
      .json<{ skills: Array<{ skillName: string; source: string }> }>()
      .skills.find((s) => s.skillName === "Kubernetes");
    expect(kube?.source).toMatch(/certificate|assessment/);
  });

  it("--file is the base, flags override it, --set adds any field", async () => {
    const file = join(t.configDir, "cert.json");
    writeFileSync(
      file,
      JSON.stringify({ title: "Old title", issuer: "Python Institute", credentialId: "PCAP-1" }),
    );
    const before = t.sandbox.requests.length;
    const r = await t.run([
      "employees",
      "add-certificate",
      "511",
      "--file",
      file,
      "--title",
      "PCAP Python",
      "--set",
      "credentialId=PCAP-007",
      "--json",
    ]);
    expect(r.code).toBe(0);
    expect(sentSince(before)[0]?.body).toEqual({
      title: "PCAP Python",
      issuer: "Python Institute",
      credentialId: "PCAP-007",
    });
  });

  it("--dry-run prints the request and sends nothing", async () => {
    const before = t.sandbox.requests.length;
    const r = await t.run(["employees", "add-certificate", "511", "--title", "AWS", "--dry-run"]);
    expect(r.code).toBe(0);
    expect(sentSince(before)).toHaveLength(0);
    expect(r.json()).toMatchObject({ dryRun: true, method: "POST", body: { title: "AWS" } });
    expect(r.stdout).not.toContain(SANDBOX_KEYS.acme);
  });

  it.each([
    [["--issuer", "AWS"], "Missing --title"],
    [["--title", "X", "--credential-url", "ftp://x"], "credential URL must be an http(s) address"],
    [
      ["--title", "X", "--issue-date", "2025-05-01", "--expiry-date", "2025-04-01"],
      "--expiry-date (2025-04-01T23:59:59Z) is before --issue-date",
    ],
    [["--title", "X", "--issue-date", "someday"], '--issue-date: "someday" is not a date'],
    [["--title", "X", "--set", "=1"], '--set expects key=value, got "=1"'],
  ])("bad input %j is a usage error and nothing is sent", async (args, message) => {
    const before = t.sandbox.requests.length;
    const r = await t.run(["employees", "add-certificate", "511", "--no-input", ...args]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(message);
    expect(sentSince(before)).toHaveLength(0);
  });

  it("a --file that is not JSON names the file", async () => {
    const file = join(t.configDir, "broken.json");
    writeFileSync(file, "{ title: ");
    const r = await t.run(["employees", "add-certificate", "511", "--file", file]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`--file: ${file} is not valid JSON`);
  });
});

describe("employees skill-gap and assign-learning", () => {
  it("GETs /employees/{id}/skill-gap and lists the expected skills, gaps first", async () => {
    const before = t.sandbox.requests.length;
    const r = await t.run(["employees", "skill-gap", "501"]);
    expect(r.code).toBe(0);
    expect(sentSince(before)).toMatchObject([
      { method: "GET", path: "/employees/501/skill-gap", api: "skills" },
    ]);
    const [header, ...rows] = r.stdout.trim().split("\n");
    expect(header).toBe("SKILL\tREQUIRED\tCURRENT\tGAP\tSTATUS");
    const emp = employee(501);
    const expected = t.sandbox.state.jobProfiles.find((p) => p.jobCode === emp.jobCode)!.skills;
    expect(rows).toHaveLength(expected.length);
    const gaps = rows.map((row) => Number(row.split("\t")[3]));
    expect(gaps).toEqual([...gaps].sort((a, b) => b - a));
    for (const row of rows) {
      const [skill, required, current, gap, status] = row.split("\t");
      expect(Number(gap)).toBe(Math.max(0, Number(required) - Number(current)));
      expect(status).toBe(Number(gap) > 0 ? "gap" : "met");
      expect(expected.map((s) => s.skillName)).toContain(skill);
    }
    expect(r.stderr).toMatch(/\d+ of \d+ expected skills below the required level/);
  });

  it("--json prints the service's answer", async () => {
    const r = await t.run(["employees", "skill-gap", "501", "--json"]);
    expect(r.json()).toMatchObject({ employeeId: 501, gaps: expect.any(Array) });
  });

  it("POSTs resources, skills, due date and note as JSON", async () => {
    const before = t.sandbox.requests.length;
    const r = await t.run([
      "employees",
      "assign-learning",
      "503",
      "--resource",
      "lr-104,lr-105",
      "--skill",
      "Kubernetes",
      "--due",
      "2026-12-31",
      "--note",
      "Before Q3",
    ]);
    expect(r.code).toBe(0);
    const [req] = sentSince(before);
    expect(req).toMatchObject({ method: "POST", path: "/employees/503/learning/assign", api: "skills" });
    expect(req?.headers["content-type"]).toBe("application/json");
    expect(req?.body).toEqual({
      learningResourceIds: ["lr-104", "lr-105"],
      skills: ["Kubernetes"],
      dueDate: "2026-12-31T23:59:59Z",
      note: "Before Q3",
    });
    const lines = r.stdout.trim().split("\n");
    expect(lines[0]).toBe("RESOURCE\tTITLE\tSKILL");
    expect(lines.slice(1).map((l) => l.split("\t")[0])).toEqual(["lr-104", "lr-105", "lr-103"]);
    expect(r.stderr).toMatch(/Assigned 3 learning items to employee 503 \(assignment \d+\)/);
  });

  it("--from-gap assigns learning for every skill below the required level", async () => {
    const profiles = t.sandbox.state.jobProfiles;
    const withGap = t.sandbox.state.employees.find(
      (e) =>
        e.accountId === "acme" &&
        e.employeeId > 505 &&
        profiles
          .find((p) => p.jobCode === e.jobCode)
          ?.skills.some(
            (req) => (e.skills.find((s) => s.skillName === req.skillName)?.level ?? 0) < req.requiredLevel,
          ),
    )!;
    const id = String(withGap.employeeId);
    const gap = (await t.run(["employees", "skill-gap", id, "--json"])).json<{
      gaps: Array<{ skillName: string }>;
    }>();
    expect(gap.gaps.length).toBeGreaterThan(0);
    const before = t.sandbox.requests.length;
    const r = await t.run(["employees", "assign-learning", id, "--from-gap", "--json"]);
    expect(r.code).toBe(0);
    const [get, post] = sentSince(before);
    expect(get).toMatchObject({ method: "GET", path: `/employees/${id}/skill-gap` });
    expect(post).toMatchObject({ method: "POST", path: `/employees/${id}/learning/assign` });
    expect(((post?.body as { skills?: string[] } | undefined)?.skills ?? []).sort()).toEqual(
      gap.gaps.map((g) => g.skillName).sort(),
    );
  });

  it("nothing to assign is a usage error and nothing is sent", async () => {
    const before = t.sandbox.requests.length;
    const r = await t.run(["employees", "assign-learning", "504"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("Nothing to assign");
    expect(sentSince(before)).toHaveLength(0);
  });

  it("--file sends any body shape; --set adds nested fields", async () => {
    const file = join(t.configDir, "learning.json");
    writeFileSync(file, JSON.stringify({ learningResourceIds: ["lr-101"] }));
    const before = t.sandbox.requests.length;
    const r = await t.run([
      "employees",
      "assign-learning",
      "505",
      "--file",
      file,
      "--set",
      "meta.priority=2",
      "--set",
      "meta.tag=q3",
    ]);
    expect(r.code).toBe(0);
    expect(sentSince(before)[0]?.body).toEqual({
      learningResourceIds: ["lr-101"],
      meta: { priority: 2, tag: "q3" },
    });
  });
});
