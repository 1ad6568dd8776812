/** POST /v3/accounts/user/create | update | status: the account's users, Active or Inactive. */
import { ok, type RouteContext } from "../context.js";
import { isoSeconds } from "../dates.js";
import { badRequest, MSG, statusError } from "../errors.js";
import type { Router } from "../router.js";
import type { User } from "../state.js";
import { isEmail, isInteger, isPresent, nonEmptyString, requireObject } from "../validate.js";

function businessUnitOk(ctx: RouteContext, id: unknown): id is number {
  const account = ctx.store.data.accounts.find((a) => a.accountId === ctx.account);
  return isInteger(id) && (account?.businessUnits.some((b) => b.businessunitId === id) ?? false);
}

function findUser(ctx: RouteContext, email: string): User {
  const lower = email.toLowerCase();
  const user = ctx.store.usersOf(ctx.account).find((u) => u.email.toLowerCase() === lower);
  if (!user) throw statusError(404, MSG.userNotFound);
  return user;
}

function createUser(ctx: RouteContext) {
  const body = requireObject(ctx.json());
  // The service's documentation spells it fullname and fullName: accept both.
  const fullName = body.fullName ?? body.fullname;
  if (!isEmail(body.email)) throw badRequest(MSG.invalidEmail);
  if (!nonEmptyString(fullName)) throw badRequest("fullName is required");
  const account = ctx.store.data.accounts.find((a) => a.accountId === ctx.account)!;
  let businessunitId = account.defaultBusinessUnitId;
  if (isPresent(body.businessunitId)) {
    if (!businessUnitOk(ctx, body.businessunitId)) throw badRequest(MSG.invalidBusinessUnit);
    businessunitId = body.businessunitId;
  }
  const lower = body.email.toLowerCase();
  // E-mail identifies a user service-wide, so an address taken in any account is "already exists".
  if (ctx.store.data.users.some((u) => u.email.toLowerCase() === lower)) throw badRequest(MSG.userExists);
  const user: User = {
    accountId: ctx.account,
    email: body.email,
    fullName: fullName.trim(),
    businessunitId,
    status: "Active",
    role: "Reviewer",
    createdAt: isoSeconds(ctx.now),
  };
  ctx.store.data.users.push(user);
  return ok({ email: user.email, fullName: user.fullName, businessunitId: user.businessunitId });
}

function updateUser(ctx: RouteContext) {
  const body = requireObject(ctx.json());
  if (!isEmail(body.Email)) throw badRequest(MSG.validEmailRequired);
  if (!businessUnitOk(ctx, body.BusinessunitId)) throw badRequest(MSG.invalidBusinessUnit);
  const user = findUser(ctx, body.Email);
  user.businessunitId = body.BusinessunitId;
  return ok({ email: user.email, businessunitId: user.businessunitId });
}

function setUserStatus(ctx: RouteContext) {
  const body = requireObject(ctx.json());
  if (!isEmail(body.email)) throw badRequest(MSG.invalidEmail);
  if (body.status !== "Active" && body.status !== "Inactive") throw badRequest(MSG.invalidUserStatus);
  const user = findUser(ctx, body.email);
  user.status = body.status;
  return ok({
    email: user.email,
    fullName: user.fullName,
    businessunitId: user.businessunitId,
    status: user.status,
  });
}

export function registerUserRoutes(router: Router): void {
  router
    .add("POST", "/v3/accounts/user/create", createUser)
    .add("POST", "/v3/accounts/user/update", updateUser)
    .add("POST", "/v3/accounts/user/status", setUserStatus);
}
