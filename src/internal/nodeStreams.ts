/**
 * Node streams as Effect streams and back, for the default transport's bodies: what
 * `@effect/platform-node`'s `NodeStream` offers, in the few lines the transport needs, so that the
 * library does not depend on that package (an optional peer, needed only to serve a sandbox).
 */
import { Effect, Stream } from "effect"
import { Readable } from "node:stream"

/**
 * The chunks of the readable `evaluate` makes, made when the stream is run and read as fast as they
 * are taken; a stream error is `onError`'s, and a stream left early (interrupted, or taken in part)
 * destroys the readable at once, even while a read is pending (the readable's own async iterator
 * would wait for that read).
 */
export const fromReadable = <E>(
  evaluate: () => Readable,
  onError: (cause: unknown) => E
): Stream.Stream<Uint8Array, E> =>
  Stream.async<Uint8Array, E>((emit) => {
    const readable = evaluate()
    readable.on("data", (chunk: Uint8Array) => {
      readable.pause()
      emit.single(chunk).then(() => readable.resume(), () => readable.destroy())
    })
    readable.on("error", (error) => void emit.fail(onError(error)))
    readable.once("end", () => void emit.end())
    return Effect.sync(() => void readable.destroy())
  })

/** A byte readable that runs `stream` as it is read, in the current runtime; a failure destroys it. */
export const toReadable = <E, R>(stream: Stream.Stream<Uint8Array, E, R>): Effect.Effect<Readable, never, R> =>
  Effect.map(Stream.toAsyncIterableEffect(stream), (chunks) => Readable.from(chunks, { objectMode: false }))
