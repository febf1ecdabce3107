import Basics
import PackStore
import Synchronization

/// Reads a tile column's next page of rows while a walker takes in this one. A walk (`du`, `ls -lR`) asks for one
/// page at a time and waits for each: while the kernel and the walker made inodes of a page, the daemon sat idle,
/// and then spent the next page's query with the walker waiting (docs/benchmarks.md, "Walking a big pack"). Here
/// the query for the page after a full one runs on a thread of its own as soon as that page's rows are read, so the
/// next request finds its rows read. Rows are used only under the store's write count they were read under
/// (`writeCount`, as `KernelListings`): any write since, and the page is read afresh. A request never waits for
/// a read ahead: one that comes while its page is being read reads it itself.
final class ListingAhead: Sendable {
    typealias Rows = [(y: Int, id: TileID, size: Int?)]

    /// A page of a column: the stored row it starts after, its length, and the write count it is read under.
    struct Page: Equatable, Sendable {
        var column: Inode
        var after: Int
        var limit: Int
        var writes: UInt64
    }

    private struct Job: Sendable {
        var page: Page
        var read: @Sendable () -> Rows?
    }

    private struct State {
        var queued: [Job] = []
        var reading: Page?
        var read: [(page: Page, rows: Rows)] = []
    }

    /// Pages queued or kept at most: one per walker, a few walkers at once.
    static let capacity = 4
    private let state = LockedState(State())
    private let worker = BackgroundWorker(name: "PackFS listing ahead")
    /// Pages a request took from here (tests, benchmarks).
    let taken = Atomic<Int>(0)

    /// Pages read and not yet taken (tests).
    var kept: Int { state.withLock { $0.read.count } }

    /// The rows read ahead for `page`, or nil (none, or still being read).
    func take(_ page: Page) -> Rows? {
        let rows = state.withLock { state -> Rows? in
            // Pages read under an older count are of no use any more: the count only grows.
            state.read.removeAll { $0.page.writes < page.writes }
            guard let index = state.read.firstIndex(where: { $0.page == page }) else { return nil }
            return state.read.remove(at: index).rows
        }
        if rows != nil { taken.add(1, ordering: .relaxed) }
        return rows
    }

    /// Reads `page` on the worker with `read` (nil: unreadable, nothing kept), unless it is queued, being read or
    /// read already.
    func schedule(_ page: Page, _ read: @escaping @Sendable () -> Rows?) {
        let queued = state.withLock { state -> Bool in
            guard state.reading != page, !state.queued.contains(where: { $0.page == page }),
                !state.read.contains(where: { $0.page == page })
            else { return false }
            state.queued.append(Job(page: page, read: read))
            if state.queued.count > Self.capacity { state.queued.removeFirst() }
            return true
        }
        if queued { worker.wake { [self] stopped in readQueued(until: stopped) } }
    }

    /// Stops the worker (at unmount, before the store closes) and drops what it read.
    func stop() {
        worker.stop()
        state.withLock { $0 = State() }
    }

    private func readQueued(until stopped: () -> Bool) {
        while !stopped() {
            let job = state.withLock { state -> Job? in
                guard !state.queued.isEmpty else { return nil }
                let job = state.queued.removeFirst()
                state.reading = job.page
                return job
            }
            guard let job else { return }
            let rows = job.read()
            state.withLock { state in
                state.reading = nil
                guard let rows else { return }
                state.read.append((job.page, rows))
                if state.read.count > Self.capacity { state.read.removeFirst() }
            }
        }
    }
}
