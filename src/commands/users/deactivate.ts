import { verb } from "../shared/verb.js";
import { userEmail } from "./columns.js";
import { setUserStatus } from "./status.js";

export default verb({
  summary: "Stop a user accessing the system (data is kept)",
  flags: { email: userEmail() },
  examples: ["assess users deactivate --email grace@example.com"],
  run: (ctx, o) => setUserStatus(ctx, o.email, "Inactive"),
});
