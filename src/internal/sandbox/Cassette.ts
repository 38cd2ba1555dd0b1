/**
 * A sandbox whose answers are a cassette's (docs/cassettes.md): replayed from the file, or recorded
 * from the service the configuration names and written to it, secrets and tokens masked. Faults and
 * counters work as on any sandbox; `reset` also plays every request from its first answer again.
 */
import { catchAll, edition, invalidConfig, service } from "#edition/internal/seam"
import { FetchHttpClient, HttpBody, HttpClient, HttpClientRequest, HttpMethod } from "#edition/internal/seam"
import { HttpServerRequest, HttpServerResponse } from "#edition/internal/seam"
import type { ConfigErrorType } from "#edition/internal/seam"
import { Clock, Effect, Option, Redacted } from "effect"
import type { Scope } from "effect"
import * as fs from "node:fs"
import * as nodePath from "node:path"
import { maskOf } from "../../core/mask/mask.js"
import * as Core from "../../core/sandbox/cassette.js"
import * as File from "../../core/sandbox/cassetteFile.js"
import { entryOf, seenOf } from "../../core/sandbox/journal.js"
import * as SearchIndex from "../../core/sandbox/searchIndex.js"
import { endpointOf } from "../../core/wire/service.js"
import * as DesignSearchConfig from "../../DesignSearchConfig.js"
import { faultResponse } from "./App.js"
import * as Control from "./Control.js"
import type { Sandbox } from "./Control.js"
import { defaults } from "./Defaults.js"
import * as Http from "./Http.js"
import * as State from "./State.js"

/**
 * How a cassette answers: `replay` from the file alone; `record` from the service, written to the
 * file afresh; `auto` from the file, and from the service (added to the file) what it lacks.
 * @since 0.3.0
 * @category options
 */
export interface CassetteOptions {
  readonly mode: "record" | "replay" | "auto"
  /** Fields of a request's JSON body left out of matching, at any depth (`changedSinceDate`). */
  readonly ignore?: ReadonlyArray<string> | undefined
}

const { apiPath, tokenPath } = DesignSearchConfig

const invalid = (file: string, why: string, option = "cassette") => invalidConfig([option], `cassette ${file}: ${why}`)

/** Whether the process `pid` runs: one not ours to signal does. */
const running = (pid: number) => {
  try {
    return process.kill(pid, 0)
  } catch (e) {
    return (e as { code?: unknown }).code === "EPERM"
  }
}

/** The locks this process holds: a lock naming our pid and not here is a crashed run's (pids repeat in containers). */
const held = new Set<string>()

/** The process that holds the lock at `path`, or `undefined` when none does (empty, unreadable, or its process ended). */
const holderOf = (path: string): string | undefined => {
  let holder: string
  try {
    holder = fs.readFileSync(path, "utf8")
  } catch {
    return undefined
  }
  const pid = Number(holder)
  const alive = Number.isInteger(pid) && pid > 0 && (pid === process.pid ? held.has(path) : running(pid))
  return alive ? holder : undefined
}

/**
 * The recording lock of `file` for the scope: `FILE.lock`, holding the process id, linked into
 * place from a file already written (never seen empty) and only where none is. A stale lock (its
 * process ended, or empty) is renamed away, then taken; one held fails.
 */
const lock = (file: string): Effect.Effect<void, ConfigErrorType, Scope.Scope> => {
  const path = nodePath.resolve(`${file}.lock`)
  const unique = () => `${path}.${process.pid}.${Math.random().toString(36).slice(2)}`
  /** `undefined` once taken, else the process that holds it. */
  const take = (tries: number): string | undefined => {
    const mine = unique()
    fs.writeFileSync(mine, String(process.pid), { flag: "wx" })
    try {
      fs.linkSync(mine, path)
      held.add(path)
      return undefined
    } catch (e) {
      if (tries === 0 || (e as { code?: unknown }).code !== "EEXIST") throw e
    } finally {
      fs.rmSync(mine, { force: true })
    }
    const holder = holderOf(path)
    if (holder !== undefined) return holder
    const stale = unique()
    try {
      fs.renameSync(path, stale)
      fs.rmSync(stale, { force: true })
    } catch (e) {
      if ((e as { code?: unknown }).code !== "ENOENT") throw e
    }
    return take(tries - 1)
  }
  const release = Effect.sync(() => held.delete(path)).pipe(
    Effect.andThen(Effect.ignore(Effect.try(() => fs.rmSync(path, { force: true }))))
  )
  return Effect.acquireRelease(
    Effect.try({ try: () => take(2), catch: (e) => invalid(file, `cannot record into it: ${String(e)}`) }),
    (holder) => holder === undefined ? release : Effect.void
  ).pipe(Effect.flatMap((holder) =>
    holder === undefined
      ? Effect.void
      : Effect.fail(
        invalid(file, `another recording into it runs (process ${holder}; its lock ${path} goes when it ends)`)
      )
  ))
}

/**
 * The cassette of `file` once its options are checked: none to start a recording, or an absent file
 * in `auto`. A recording holds the file's lock; a path that is not a regular file is refused (a
 * device would be read for ever, `/dev/zero`; a pipe would block).
 */
const load = (file: string, options: CassetteOptions) =>
  Effect.gen(function*() {
    const problem = Core.optionsProblem(file, options)
    if (problem !== undefined) return yield* Effect.fail(invalid(file, problem.join(": "), problem[0]))
    const attempt = <A>(f: () => A) => Effect.try({ try: f, catch: (e) => invalid(file, String(e)) })
    const stat = yield* attempt(() => fs.statSync(file, { throwIfNoEntry: options.mode === "replay" }))
    if (stat !== undefined && !stat.isFile()) return yield* Effect.fail(invalid(file, "it is not a regular file"))
    if (options.mode !== "replay") yield* lock(file)
    const read = stat === undefined || options.mode === "record"
      ? { version: 1 as const, exchanges: [] }
      : File.read(yield* attempt(() => fs.readFileSync(file, "utf8")))
    return typeof read === "string" ? yield* Effect.fail(invalid(file, read)) : read
  })

/** A recorded (or live) answer. */
const answer = ({ headers, status }: Core.RecordedResponse, text: string) =>
  text === ""
    ? HttpServerResponse.empty({ status, headers })
    : HttpServerResponse.text(text, { status, headers, contentType: headers["content-type"] ?? "text/plain" })

/**
 * The sandbox of the cassette at `file`. Recording, the service is the `DesignSearchConfig` in
 * context (else the `IPAUSTRALIA_*` variables'), reached through the `HttpClient` in context (else
 * `fetch`); replaying, neither is read.
 * @since 0.3.0
 * @category constructors
 */
export const make = (
  file: string,
  options: CassetteOptions
): Effect.Effect<Sandbox, ConfigErrorType, Scope.Scope> =>
  Effect.gen(function*() {
    const loaded = yield* load(file, options)
    const ignore = new Set(options.ignore ?? [])
    const player = Core.player(loaded, ignore)
    const upstream = options.mode === "replay" ? undefined : {
      settings: yield* Option.match(yield* Effect.serviceOption(DesignSearchConfig.DesignSearchConfig), {
        onNone: () => DesignSearchConfig.fromEnv,
        onSome: Effect.succeed
      }),
      client: yield* Option.match(yield* Effect.serviceOption(HttpClient.HttpClient), {
        onNone: () => Effect.provide(service(HttpClient.HttpClient), FetchHttpClient.layer),
        onSome: Effect.succeed
      })
    }
    const clientId = upstream?.settings.clientId ?? defaults.clientId
    const clientSecret = upstream === undefined ? defaults.clientSecret : Redacted.value(upstream.settings.clientSecret)
    const secrets = [clientSecret, `${clientId}:${clientSecret}`]
    const state = State.make(defaults.journalSize, defaults.journalBytes)
    const errors = Http.errorAnswers(Http.counter("cassette"))
    const tokens = new Set<string>()
    let written = false
    /** Writes the file whole once, then only what an added exchange changes at its end. */
    const save = (exchange: Core.Exchange) => {
      if (written) {
        const { cut, text } = File.appended(exchange)
        fs.truncateSync(file, fs.statSync(file).size - cut)
        fs.appendFileSync(file, text)
      } else fs.writeFileSync(file, File.write(player.cassette()))
      written = true
    }

    /** `sent` asked of the service; its answer sent on, and recorded without a secret or a token. */
    const record = (
      { client, settings }: NonNullable<typeof upstream>,
      request: HttpServerRequest.HttpServerRequest,
      sent: Core.RecordedRequest,
      text: string
    ) => {
      const { pathname, search } = new URL(sent.path, "http://cassette.invalid")
      const url = (pathname === tokenPath ? settings.tokenUrl : settings.apiBaseUrl + pathname.slice(apiPath.length)) +
        search
      const headers = Object.fromEntries(
        Object.entries(request.headers).filter(([h]) => ["accept", "authorization", "content-type"].includes(h))
      )
      tokens.add(headers["authorization"]?.replace(/^\S+ +/, "") ?? "")
      const body = text === "" ? undefined : HttpBody.text(text, headers["content-type"])
      // Effect 4's client takes only the methods HTTP names: another (Node passes `PROPFIND`) gets a 405.
      const method = request.method as HttpMethod.HttpMethod
      const refused = (edition as 3 | 4) === 4 && !HttpMethod.isHttpMethod(method)
      if (refused) return Effect.succeed(errors(405, [Http.statusProblem(405)]))
      return client.execute(HttpClientRequest.make(method)(url, { headers, body })).pipe(
        Effect.flatMap((response) => Effect.map(response.text, (body) => ({ response, body }))),
        Effect.flatMap(({ body, response }) => {
          const live = Core.responseOf(response.status, Core.keptHeaders(response.headers), body)
          Core.tokensOf(body).forEach((token) => tokens.add(token))
          const secret = Redacted.value(settings.clientSecret)
          const mask = maskOf([secret, `${settings.clientId}:${secret}`, ...tokens])
          const kept = Core.scrub({ request: sent, response: live }, mask)
          return (player.add(kept) ?
            Effect.try({ try: () => save(kept), catch: String })
            : Effect.void).pipe(
              Effect.as(answer(live, body)),
              catchAll((why) =>
                Effect.succeed(errors(500, [{ code: "CASSETTE_UNWRITABLE", detail: `cannot write ${file}: ${why}` }]))
              )
            )
        }),
        // the client's errors, `RequestError` and `ResponseError` (`HttpClientError` in Effect 4)
        catchAll((error) => Effect.succeed(errors(502, [{ code: "CASSETTE_UPSTREAM", detail: error.message }])))
      )
    }

    /** The answer to `sent`: the fault's, the cassette's, or the service's; else a miss. */
    const answerTo = (
      request: HttpServerRequest.HttpServerRequest,
      sent: Core.RecordedRequest,
      endpoint: State.Endpoint | undefined,
      fault: State.Fault | undefined,
      text: string
    ) =>
      Effect.gen(function*() {
        if (fault !== undefined) return yield* faultResponse({ errors }, fault)
        // A recording asks the service for every token: the requests it records need a live one.
        const live = upstream !== undefined && (options.mode === "record" || endpoint === "token")
        const played = live ? undefined : player.play(sent)
        if (played !== undefined) return answer(played.response, Core.bodyText(played.response))
        if (upstream !== undefined) return yield* record(upstream, request, sent, text)
        const detail = Core.missOf(player.cassette(), sent, ignore, maskOf(secrets).text(text))
        return errors(501, [{ code: "CASSETTE_MISS", detail }])
      })

    const app = Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      const { pathname, search } = new URL(request.url, "http://cassette.invalid")
      const text = yield* Effect.orElseSucceed(request.text, () => "")
      const sent = Core.requestOf(request.method, pathname + search, text)
      const endpoint = endpointOf(pathname)
      const received = { time: yield* Clock.currentTimeMillis, path: pathname, target: endpoint, body: text }
      const { entry, fault } = State.receive(
        state,
        endpoint,
        seenOf(request, received),
        () => entryOf<State.Endpoint, State.Fault>(secrets, request, received)
      )
      const response = yield* answerTo(request, sent, endpoint, fault, text)
      if (fault?.kind !== "reset") entry.status = response.status
      return response
    })
    const control = Control.make(state, SearchIndex.make([]))
    return {
      app,
      control: { ...control, reset: Effect.andThen(control.reset, Effect.sync(player.rewind)) },
      clientId,
      clientSecret,
      designCount: 0
    }
  })
