import type { Context } from "../../context.js";
import { UsageError } from "../../errors.js";
import { toServiceTime } from "../../parse/dates.js";
import { withSent } from "../shared/fields.js";
import { flag } from "../shared/flags.js";
import { requireValues } from "../shared/options.js";
import { type OptionsOf, verb } from "../shared/verb.js";
import { bodyFlags, bodyNotes, composeBody, employeeArg } from "./body.js";
import { CERTIFICATE_COLUMNS, CERTIFICATE_SKILLS_COLUMN } from "./certificates.js";
import { inferredSkills } from "./records.js";

const flags = {
  title: flag.text("<title>", "certificate title (asked for when missing and prompts are allowed)"),
  issuer: flag.text("<issuer>", "issuing organisation"),
  issueDate: flag.date("start", "when it was issued (YYYY-MM-DD or ISO time)"),
  expiryDate: flag.date("end", "when it expires (a bare date means the end of that day)"),
  credentialUrl: flag.text("<url>", "where the credential can be verified"),
  credentialId: flag.text("<id>", "the credential's id at the issuer"),
  ...bodyFlags("cert.json"),
};

export default verb({
  summary: "Store a certificate of an employee; the service infers skills from its title and issuer",
  args: [employeeArg()],
  flags,
  notes: bodyNotes(
    '{"title": "...", "issuer": "...", "issueDate": "2025-03-01T00:00:00Z", "expiryDate": "2028-03-01T23:59:59Z", "credentialUrl": "https://...", "credentialId": "..."}',
    "Fields without a value are left out; dates are sent as UTC YYYY-MM-DDTHH:mm:ssZ.",
  ),
  examples: [
    "assess employees add-certificate 501 --title 'AWS Certified Solutions Architect' --issuer 'Amazon Web Services' --issue-date 2025-03-01",
    "assess employees add-certificate 501 --file cert.json --dry-run",
  ],
  run,
});

async function run(ctx: Context, o: OptionsOf<typeof flags>, [employeeId]: [number]) {
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
  await ctx.out.record(withSent(ctx.out, certificate, body), [
    ...CERTIFICATE_COLUMNS,
    { key: "credentialUrl", header: "CREDENTIAL URL" },
    CERTIFICATE_SKILLS_COLUMN,
  ]);
  return 0;
}
