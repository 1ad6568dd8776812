/** GET /v3/reports/{testInvitationId}[?reportType=1|2|3] and GET /v3/reports/{testInvitationId}/pdf. */
import { idParam, ok, ownedInvitation, type RouteContext } from "../context.js";
import { badRequest, MSG, statusError } from "../errors.js";
import { reportPdfUrl } from "../lifecycle.js";
import { reportPdf } from "../pdf.js";
import { buildReport, type Report, type ReportType } from "../report-builder.js";
import type { Router } from "../router.js";
import { isFinished } from "../state.js";

function reportFor(ctx: RouteContext, reportType: ReportType): Report {
  const inv = ownedInvitation(ctx, idParam(ctx, "testInvitationId"));
  if (!isFinished(inv.status)) throw statusError(400, MSG.reportNotReady);
  const test = ctx.store.test(inv.testId);
  if (!test) throw statusError(404, MSG.testNotFound);
  return buildReport(inv, test, reportPdfUrl(ctx.env, inv.testInvitationId), reportType);
}

function parseReportType(ctx: RouteContext): ReportType {
  const raw = ctx.query.get("reportType");
  if (raw === null || raw === "") return 1;
  if (raw === "1" || raw === "2" || raw === "3") return Number(raw) as ReportType;
  throw badRequest("reportType must be 1 (by section), 2 (by skill) or 3 (both)");
}

export function registerReportRoutes(router: Router): void {
  router
    .add("GET", "/v3/reports/:testInvitationId", (ctx) => ok(reportFor(ctx, parseReportType(ctx))))
    .add("GET", "/v3/reports/:testInvitationId/pdf", (ctx) => {
      const report = reportFor(ctx, 1);
      return {
        status: 200,
        body: reportPdf(report),
        contentType: "application/pdf",
        headers: { "content-disposition": `attachment; filename="report-${report.testInvitationId}.pdf"` },
      };
    });
}
