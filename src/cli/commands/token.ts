/**
 * `design-search token`: fetches an access token and shows its type, expiry and (unverified) JWT
 * claims, to check credentials and entitlements. The token itself is a secret: it is printed only
 * with `--show`.
 */
import { Command, Options } from "@effect/cli"
import { Clock, DateTime, Duration, Effect, Option, Redacted } from "effect"
import { AccessToken, TokenService } from "../../index.js"
import { envOption } from "../Environment.js"
import * as Output from "../Output.js"
import { provideClient } from "../Root.js"

const claimText = (value: unknown): string => (typeof value === "string" ? value : JSON.stringify(value))

/** @since 0.1.0 */
export const token = Command.make("token", {
  json: Options.boolean("json").pipe(Options.withDescription("one JSON object on stdout")),
  show: Options.boolean("show").pipe(Options.withDescription("also print the access token itself (a secret)")),
  env: envOption
}, (args) =>
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
  }).pipe(provideClient(args.env))).pipe(
    Command.withDescription("Fetch an access token and show its type, expiry and claims (the token only with --show)")
  )
