import type { Handler } from "../shared/kit.js";
import { parseId } from "../shared/options.js";

const cancel: Handler = async (ctx, [idArg]) => {
  const id = parseId(idArg, "testInvitationId");
  const api = await ctx.api();
  const answer = await api.cancelInvitation(id);
  ctx.success(`Invitation ${id} cancelled`);
  await ctx.out.record({ testInvitationId: id, status: "cancelled", ...answer });
  return 0;
};
export default cancel;
