import type { Context } from "../../context.js";
import { UsageError } from "../../errors.js";
import { toServiceTime } from "../../parse/dates.js";
import { date, id } from "../../parse/flags.js";
import * as z from "../../parse/zod.js";
import { requireValues } from "../shared/options.js";
import { composeBody } from "./body.js";
import { CERTIFICATE_COLUMNS, CERTIFICATE_SKILLS_COLUMN } from "./certificates.js";
import { inferredSkills } from "./records.js";

export const options = z.object({
  title: z.string().optional(),
  issuer: z.string().optional(),
  issueDate: date("start").optional(),
  expiryDate: date("end").optional(),
  credentialUrl: z.string().optional(),
  credentialId: z.string().optional(),
  file: z.string().optional(),
  set: z.array(z.string()).optional(),
});
export const args = z.tuple([id()]);

export async function run(ctx: Context, o: z.infer<typeof options>, [employeeId]: z.infer<typeof args>) {
  const { issueDate: issued, expiryDate: expires } = o;
  if (issued && expires && expires < issued) {
    throw new UsageError(
      `--expiry-date (${toServiceTime(expires)}) is before --issue-date (${toServiceTime(issued)})`,
    );
  }
  const body = await composeBody(
    o,
    {
      title: o.title,
      issuer: o.issuer,
      issueDate: issued && toServiceTime(issued),
      expiryDate: expires && toServiceTime(expires),
      credentialUrl: o.credentialUrl,
      credentialId: o.credentialId,
    },
    ctx.io.stdin,
  );
  if (typeof body.title !== "string" || body.title.trim() === "") {
    if (body.title !== undefined)
      throw new UsageError(`"title" must be a non-empty string, got ${JSON.stringify(body.title)}`);
    [body.title] = await requireValues(ctx, [
      { flag: "--title", value: undefined, question: "Certificate title" },
    ]);
  }
  const url = body.credentialUrl;
  const isWebUrl = typeof url === "string" && URL.canParse(url) && /^https?:$/.test(new URL(url).protocol);
  if (url !== undefined && url !== null && !isWebUrl)
    throw new UsageError(`The credential URL must be an http(s) address, got ${JSON.stringify(url)}`);

  const client = await ctx.client();
  const certificate = await client.employees.certificates.add(employeeId, body);
  const id = certificate.certificateId ?? certificate.id;
  ctx.success(
    `Stored certificate${id === undefined ? "" : ` ${String(id)}`} for employee ${employeeId}` +
      inferredSkills(certificate, "its title and issuer"),
  );
  await ctx.out.record(certificate, [
    ...CERTIFICATE_COLUMNS,
    { key: "credentialUrl", header: "CREDENTIAL URL" },
    CERTIFICATE_SKILLS_COLUMN,
  ]);
  return 0;
}
