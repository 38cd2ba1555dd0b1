/**
 * `mapInOrder`: what `Stream.mapEffect(f, { concurrency })` does for an array, in order, at a
 * fraction of its cost per element (its channel machinery costs more CPU than a design request).
 * `concurrency` workers take the items in turn, at most `4 × concurrency` results wait to be read,
 * and each pull emits the next `concurrency / 2` results in order once they are all there. A
 * failure is emitted in its place: the results before it first, then the stream fails, and the
 * calls still running are interrupted.
 */
import { Chunk, Deferred, Effect, Exit, FiberId, Option, Stream } from "effect"

export const mapInOrder = <A, B, E, R>(
  items: ReadonlyArray<A>,
  f: (item: A) => Effect.Effect<B, E, R>,
  concurrency: number
): Stream.Stream<B, E, R> =>
  Stream.unwrapScoped(Effect.gen(function*() {
    const scope = yield* Effect.scope
    const n = items.length
    const buffer = concurrency * 4
    const exits: Array<Exit.Exit<B, E> | undefined> = new Array(n)
    // results from `head` on are unread; `next` is the next item to start
    let head = 0
    let next = 0
    // The reader waiting for results, and the workers waiting for room in the buffer.
    let reader: Deferred.Deferred<void> | undefined
    let room: Deferred.Deferred<void> | undefined
    const wakeReader = () => {
      if (reader !== undefined) Deferred.unsafeDone(reader, Exit.void)
      reader = undefined
    }
    const wakeWorkers = () => {
      if (room !== undefined) Deferred.unsafeDone(room, Exit.void)
      room = undefined
    }

    // `concurrency` workers take the items in turn (no fiber per item); a worker stops at a failure.
    const worker: Effect.Effect<void, never, R> = Effect.gen(function*() {
      while (next < n) {
        if (next - head >= buffer) {
          room ??= Deferred.unsafeMake<void>(FiberId.none)
          yield* Deferred.await(room)
          continue
        }
        const index = next++
        const exit = yield* Effect.exit(f(items[index]!))
        exits[index] = exit
        wakeReader()
        if (Exit.isFailure(exit)) return
      }
    })
    yield* Effect.forkIn(Effect.all(Array.from({ length: Math.min(concurrency, n) }, () => worker), { concurrency: "unbounded", discard: true }), scope)

    // A pull costs the stream about as much as a small request: each waits for a batch of results.
    const batch = Math.max(1, Math.floor(concurrency / 2))
    const read: Effect.Effect<Chunk.Chunk<B>, Option.Option<E>> = Effect.suspend(() => {
      if (head === n) return Effect.fail(Option.none())
      const first = exits[head]
      if (first !== undefined && Exit.isFailure(first)) return Effect.mapError(Effect.failCause(first.cause), Option.some)
      const want = Math.min(batch, n - head)
      let ready = 0
      while (ready < want) {
        const exit = exits[head + ready]
        if (exit === undefined || Exit.isFailure(exit)) break
        ready++
      }
      // wait for the batch, unless a failure ends it early
      if (ready < want && exits[head + ready] === undefined) {
        reader = Deferred.unsafeMake<void>(FiberId.none)
        return Effect.zipRight(Deferred.await(reader), read)
      }
      const out: Array<B> = new Array(ready)
      for (let i = 0; i < ready; i++) {
        out[i] = (exits[head] as Exit.Success<B, E>).value
        exits[head++] = undefined
      }
      wakeWorkers()
      return Effect.succeed(Chunk.unsafeFromArray(out))
    })
    return Stream.repeatEffectChunkOption(read)
  }))
