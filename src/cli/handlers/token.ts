/** `design-search token`: a token's type, expiry and claims, and the token itself only when asked. */
import { Clock, DateTime, Duration, Effect, Option, Redacted } from "effect"
import { AccessToken, TokenService } from "../../index.js"
import { provideClient } from "../Client.js"
import type { TokenInput } from "../Inputs.js"
import * as Output from "../Output.js"

const claimText = (value: unknown): string => (typeof value === "string" ? value : JSON.stringify(value))

export const handle = (args: TokenInput) =>
  Effect.gen(function*() {
    const tokens = yield* TokenService.TokenService
    const accessToken = yield* tokens.get
    const now = yield* Clock.currentTimeMillis
    const expiresIn = Duration.millis(Math.max(0, DateTime.toEpochMillis(accessToken.expiresAt) - now))
    const claims = Option.getOrUndefined(AccessToken.claims(accessToken))
    const secret = args.show ? Redacted.value(accessToken.token) : undefined
    if (args.json) {
      return yield* Output.json({
        tokenType: accessToken.tokenType,
        issuedAt: DateTime.formatIso(accessToken.issuedAt),
        expiresAt: DateTime.formatIso(accessToken.expiresAt),
        expiresInSeconds: Math.floor(Duration.toSeconds(expiresIn)),
        claims: claims ?? null,
        ...(secret === undefined ? {} : { accessToken: secret })
      })
    }
    const lines = [
      `token type:  ${accessToken.tokenType}`,
      `issued at:   ${DateTime.formatIso(accessToken.issuedAt)}`,
      `expires at:  ${DateTime.formatIso(accessToken.expiresAt)} (in ${
        Duration.format(Duration.seconds(Math.floor(Duration.toSeconds(expiresIn))))
      })`,
      ...(claims === undefined
        ? ["claims:      (the token is not a JWT)"]
        : ["claims:", ...Object.entries(claims).map(([key, value]) => `  ${key}: ${claimText(value)}`)]),
      ...(secret === undefined ? [] : [`access token: ${secret}`])
    ]
    yield* Output.stdout(lines.join("\n"))
  }).pipe(provideClient(args))
