import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// Requests waiting for their retry time: a min-heap on the due time (the loop polls until the
/// earliest), ties in submission order so equal delays retry first-failed first.
struct RetryQueue<Element> {
    private struct Entry {
        var due: UInt64
        var sequence: UInt64
        var element: Element
        func precedes(_ other: Entry) -> Bool {
            due != other.due ? due < other.due : sequence < other.sequence
        }
    }

    private var heap: [Entry] = []
    private var nextSequence: UInt64 = 0

    var isEmpty: Bool { heap.isEmpty }
    /// Monotonic nanoseconds of the earliest entry.
    var earliestDue: UInt64? { heap.first?.due }

    mutating func insert(_ element: Element, due: UInt64) {
        heap.append(Entry(due: due, sequence: nextSequence, element: element))
        nextSequence += 1
        siftUp(heap.count - 1)
    }

    /// Removes and returns the earliest entry if it is due at `now`.
    mutating func popDue(now: UInt64) -> Element? {
        guard let first = heap.first, first.due <= now else { return nil }
        heap.swapAt(0, heap.count - 1)
        heap.removeLast()
        if !heap.isEmpty { siftDown(0) }
        return first.element
    }

    /// Removes the elements matching `predicate`, returning them.
    mutating func remove(where predicate: (Element) -> Bool) -> [Element] {
        let removed = heap.filter { predicate($0.element) }.map(\.element)
        guard !removed.isEmpty else { return [] }
        heap.removeAll { predicate($0.element) }
        for index in stride(from: heap.count / 2 - 1, through: 0, by: -1) { siftDown(index) }
        return removed
    }

    private mutating func siftUp(_ start: Int) {
        var child = start
        while child > 0 {
            let parent = (child - 1) / 2
            guard heap[child].precedes(heap[parent]) else { return }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    private mutating func siftDown(_ start: Int) {
        var parent = start
        while true {
            let left = 2 * parent + 1, right = left + 1
            var smallest = parent
            if left < heap.count, heap[left].precedes(heap[smallest]) { smallest = left }
            if right < heap.count, heap[right].precedes(heap[smallest]) { smallest = right }
            guard smallest != parent else { return }
            heap.swapAt(parent, smallest)
            parent = smallest
        }
    }
}

/// Monotonic time in nanoseconds; wall-clock jumps must not fire or stall retries.
enum MonotonicClock {
    static func now() -> UInt64 {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return UInt64(spec.tv_sec) * 1_000_000_000 + UInt64(spec.tv_nsec)
    }

    static func nanoseconds(_ seconds: Double) -> UInt64 {
        UInt64(max(0, seconds) * 1_000_000_000)
    }
}
