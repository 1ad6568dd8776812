import { verb } from "../shared/verb.js";
import { userEmail } from "./columns.js";
import { setUserStatus } from "./status.js";

export default verb({
  summary: "Let a user access the system again",
  flags: { email: userEmail() },
  examples: ["assess users activate --email grace@example.com"],
  run: (ctx, o) => setUserStatus(ctx, o.email, "Active"),
});
