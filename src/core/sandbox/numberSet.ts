/**
 * A set of design numbers that grows with the register without growing V8's heap: a number of up
 * to nine digits without a leading zero (what the register's numbers are) is kept as an integer in
 * a sorted `Uint32Array`, whose memory is outside the heap. A `Set` of 100,000 numbers is a
 * megabyte that lives as long as the stream, and the collector lets the heap grow to a multiple of
 * what lives. The newest numbers wait in a small `Set`, merged into the array a few thousand at a
 * time; any other number is kept as itself.
 */

const isRegisterNumber = (n: string) => /^[1-9]\d{0,8}$/.test(n)

/** Numbers held in the small `Set` before they are merged into the array. */
const pending = 4096

/** Whether `sorted[0, size)` holds `key`, by bisection. */
const holds = (sorted: Uint32Array, size: number, key: number) => {
  let low = 0
  let high = size
  while (low < high) {
    const middle = (low + high) >>> 1
    if (sorted[middle]! < key) low = middle + 1
    else high = middle
  }
  return low < size && sorted[low] === key
}

/** A set of design numbers, each added once: `add` tells whether it was not there yet. */
export const make = () => {
  let sorted = new Uint32Array(0)
  let size = 0
  const recent = new Set<number>()
  const others = new Set<string>()

  /** Merges `recent` into `sorted` from the end, in place, in an array twice as large if it must be. */
  const merge = () => {
    const incoming = Uint32Array.from(recent).sort()
    recent.clear()
    if (size + incoming.length > sorted.length) {
      const larger = new Uint32Array(Math.max(2 * sorted.length, size + incoming.length))
      larger.set(sorted.subarray(0, size))
      sorted = larger
    }
    let i = size - 1
    let j = incoming.length - 1
    for (let k = size + incoming.length - 1; j >= 0; k--) {
      sorted[k] = i >= 0 && sorted[i]! > incoming[j]! ? sorted[i--]! : incoming[j--]!
    }
    size += incoming.length
  }

  return {
    add: (n: string): boolean => {
      if (!isRegisterNumber(n)) return !others.has(n) && (others.add(n), true)
      const key = Number(n)
      if (recent.has(key) || holds(sorted, size, key)) return false
      recent.add(key)
      if (recent.size >= pending) merge()
      return true
    }
  }
}

/** A set of design numbers (`make`). */
export type NumberSet = ReturnType<typeof make>
