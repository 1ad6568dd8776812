import { UsageError } from "../../errors.js";
import { parseDate, toServiceTime } from "../../parse/dates.js";
import type { Handler } from "../shared/kit.js";
import { parseId, requireValues } from "../shared/options.js";
import { composeBody } from "./body.js";
import { CERTIFICATE_COLUMNS, CERTIFICATE_SKILLS_COLUMN } from "./certificates.js";
import { skillsOf } from "./records.js";

const addCertificate: Handler = async (ctx, [idArg], o) => {
  const employeeId = parseId(idArg, "employeeId");
  const issued =
    o.issueDate === undefined ? undefined : parseDate(String(o.issueDate), "start", "--issue-date");
  const expires =
    o.expiryDate === undefined ? undefined : parseDate(String(o.expiryDate), "end", "--expiry-date");
  if (issued && expires && expires < issued) {
    throw new UsageError(
      `--expiry-date (${toServiceTime(expires)}) is before --issue-date (${toServiceTime(issued)})`,
    );
  }
  const body = await composeBody(o, {
    title: o.title,
    issuer: o.issuer,
    issueDate: issued && toServiceTime(issued),
    expiryDate: expires && toServiceTime(expires),
    credentialUrl: o.credentialUrl,
    credentialId: o.credentialId,
  });
  if (typeof body.title !== "string" || body.title.trim() === "") {
    if (body.title !== undefined)
      throw new UsageError(`"title" must be a non-empty string, got ${JSON.stringify(body.title)}`);
    [body.title] = await requireValues(ctx, [
      { flag: "--title", value: undefined, question: "Certificate title" },
    ]);
  }
  if (body.credentialUrl !== undefined && body.credentialUrl !== null && !isWebUrl(body.credentialUrl)) {
    throw new UsageError(
      `The credential URL must be an http(s) address, got ${JSON.stringify(body.credentialUrl)}`,
    );
  }

  const api = await ctx.api();
  const certificate = await api.addCertificate(employeeId, body);
  const skills = skillsOf(certificate).map((s) => s.skillName);
  const id = certificate.certificateId ?? certificate.id;
  ctx.success(
    `Stored certificate${id === undefined ? "" : ` ${String(id)}`} for employee ${employeeId}` +
      (skills.length > 0
        ? `; skills inferred: ${skills.join(", ")}`
        : "; no skills could be inferred from its title and issuer"),
  );
  await ctx.out.record(certificate, [
    ...CERTIFICATE_COLUMNS,
    { key: "credentialUrl", header: "CREDENTIAL URL" },
    CERTIFICATE_SKILLS_COLUMN,
  ]);
  return 0;
};
export default addCertificate;

function isWebUrl(value: unknown): boolean {
  if (typeof value !== "string") return false;
  try {
    return ["http:", "https:"].includes(new URL(value).protocol);
  } catch {
    return false;
  }
}
