/**
 * `mapInOrder`: what `Stream.mapEffect(f, { concurrency })` does for an array, in order, at a
 * fraction of its cost per element (README, "Where the CPU goes").
 * `concurrency` workers take the items in turn, at most `4 × concurrency` results wait to be read,
 * and each pull emits the next `concurrency / 2` results in order once they are all there. A
 * failure is emitted in its place: the results before it first, then the stream fails; no call
 * starts after it, and the calls still running are interrupted.
 */
import { Chunk, Effect, Exit, Option, Stream } from "effect"

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
    // set by the first failure: no worker starts another call
    let failed = false
    // The reader waiting for the result at `awaited` (the first missing one of its batch), and the
    // workers waiting for room in the buffer: woken through `Effect.async` callbacks.
    let reader: ((_: Effect.Effect<void>) => void) | undefined
    let awaited = -1
    const waitingWorkers: Array<(_: Effect.Effect<void>) => void> = []
    const wakeReader = (index: number) => {
      if (reader !== undefined && index === awaited) {
        const resume = reader
        reader = undefined
        resume(Effect.void)
      }
    }
    const wakeWorkers = () => {
      for (const resume of waitingWorkers.splice(0)) resume(Effect.void)
    }
    // Each wait checks again as it begins: the fiber may have yielded since it looked, and what it
    // waits for may have happened in between, with no one left to wake it.
    const hasRoom = () => next - head < buffer
    const forRoom = Effect.async<void>((resume) => {
      if (hasRoom() || next >= n || failed) return resume(Effect.void)
      waitingWorkers.push(resume)
      return Effect.sync(() => {
        const i = waitingWorkers.indexOf(resume)
        if (i >= 0) waitingWorkers.splice(i, 1)
      })
    })
    const forResult = (index: number) =>
      Effect.async<void>((resume) => {
        if (exits[index] !== undefined) return resume(Effect.void)
        reader = resume
        awaited = index
        return Effect.sync(() => void (reader = undefined))
      })

    // `concurrency` workers take the items in turn (no fiber per item); all stop at a failure.
    const worker: Effect.Effect<void, never, R> = Effect.gen(function*() {
      while (next < n && !failed) {
        if (!hasRoom()) {
          yield* forRoom
          continue
        }
        const index = next++
        const exit = yield* Effect.exit(f(items[index]!))
        exits[index] = exit
        wakeReader(index)
        if (Exit.isFailure(exit)) {
          failed = true
          return wakeWorkers()
        }
      }
    })
    yield* Effect.forkIn(
      Effect.all(Array.from({ length: Math.min(concurrency, n) }, () => worker), {
        concurrency: "unbounded",
        discard: true
      }),
      scope
    )

    // each pull waits for a batch of results
    const batch = Math.max(1, Math.floor(concurrency / 2))
    const read: Effect.Effect<Chunk.Chunk<B>, Option.Option<E>> = Effect.suspend(() => {
      if (head === n) return Effect.fail(Option.none())
      const first = exits[head]
      if (first !== undefined && Exit.isFailure(first)) {
        return Effect.mapError(Effect.failCause(first.cause), Option.some)
      }
      const want = Math.min(batch, n - head)
      let ready = 0
      while (ready < want) {
        const exit = exits[head + ready]
        if (exit === undefined || Exit.isFailure(exit)) break
        ready++
      }
      // wait for the batch, unless a failure ends it early
      if (ready < want && exits[head + ready] === undefined) return Effect.zipRight(forResult(head + ready), read)
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
