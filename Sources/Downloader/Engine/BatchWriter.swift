import Basics
import FoundationEssentials
import PackStore
import Dispatch

/// One finished piece of a download, waiting to be written.
enum WriteItem {
    case resource(url: String, kind: ResourceKind, data: StoredData, headers: CacheHeaders)
    /// `replaces`: a refresh's 200 for a stored tile, whose row may already count in the pack.
    /// `size`: the content's served size (`StoredData.servedSize`), kept beside it.
    case tile(TileKey, data: StoredData, size: Int?, headers: CacheHeaders, replaces: Bool)
    /// A 304: content stays, validators and `accessed` are renewed.
    case revalidatedResource(url: String, headers: CacheHeaders)
    case revalidatedTile(TileKey, headers: CacheHeaders)
    /// Already stored (by any pack or the ambient cache): only the membership row is added.
    case adoptedResource(url: String)
    case adoptedTile(TileKey)
    /// A tile the refresh staged before it was cut: nothing to write; its plan chunk counts it.
    case alreadyStaged

    /// The bytes it holds, for the writer's batch limit.
    var byteCount: Int {
        switch self {
        case .resource(_, _, let data, _), .tile(_, let data, _, _, _): data.bytes?.count ?? 0
        default: 0
        }
    }
}

/// Collects finished downloads from the HTTP thread and writes them in batches, one transaction
/// each, on a thread of its own, so neither the network loop nor FUSE readers wait for SQLite. A
/// crash loses at most the uncommitted batch; resuming adopts what was committed.
///
/// Progress. The pack's counts are queried once, after `recount()`, then kept from what each batch
/// wrote: the query reads every tile row of the pack. `progress` is what the last commit left.
final class BatchWriter: @unchecked Sendable {  // `lock` guards what `add` and readers share; `tally` is the queue's; callbacks are set before the first `add`
    private let database: OfflineDatabase
    private let region: RegionID
    private let maxItems: Int
    private let maxBytes: Int
    private let maxDelay: TimeInterval
    private let queue = DispatchQueue(label: "packfs.batch-writer")
    private let lock = Lock()
    /// Each item with the plan chunk of a tile's write (`ResumeLedger`), if it has one.
    private var pending: [(item: WriteItem, chunk: Int?)] = []
    private var pendingBytes = 0
    private var flushQueued = false
    private var failure: Error?
    private var tally: PackCounts?
    private var committed: PackProgress?
    /// Called on the writer thread after each commit with the plan chunks of the tile writes it held.
    var onCommit: (([Int]) -> Void)?
    /// Written in the same transaction as each batch (the run's resume point, once it has one).
    var resumePoint: (() -> ResumePoint?)?
    /// Written in the same transaction as each batch, so state and content never disagree.
    var status: (() -> PackStatus)?
    // Set before the first `add`:
    /// A refresh's `since`: its rows are stamped no earlier (PendingRefresh.swift).
    var notBefore: Int64?
    /// A refresh's `since` too: what would change what a reader sees is staged for the switch instead.
    var staging: Int64?
    /// `--disk-quota`, enforced at the end of each batch's transaction.
    var diskQuota: Int64?
    /// Called on the writer thread with the first write failure: the run stops rather than fetch more.
    var onFailure: ((Error) -> Void)?

    // Bounded by bytes too: by count alone, batches of real vector tiles doubled a download's daemon
    // (docs/benchmarks.md, "Designs measured and set aside").
    init(database: OfflineDatabase, region: RegionID, maxItems: Int = 512, maxBytes: Int = 1 << 20,
         maxDelay: TimeInterval = 0.2) {
        self.database = database
        self.region = region
        self.maxItems = maxItems
        self.maxBytes = maxBytes
        self.maxDelay = maxDelay
    }

    /// Thread-safe; returns at once. `chunk`: the plan chunk a tile's write completes.
    func add(_ item: WriteItem, chunk: Int? = nil) {
        lock.lock()
        pending.append((item, chunk))
        pendingBytes += item.byteCount
        let count = pending.count
        let full = count >= maxItems || pendingBytes >= maxBytes
        let overfull = full && flushQueued
        let flushNow = full && !flushQueued
        if flushNow { flushQueued = true }
        lock.unlock()
        if flushNow {
            queue.async { self.flush() }
        } else if count == 1 {
            queue.asyncAfter(deadline: .now() + maxDelay) { self.flush() }
        }
        // Flow control: with a full batch waiting behind the one being committed, the caller waits for
        // the queued flush, so the network cannot outrun the disk and pile tiles up in memory.
        if overfull { queue.sync {} }
    }

    /// Writes what is pending and waits for it; rethrows the first write failure.
    func finish() throws {
        queue.sync { flush() }
        if let failure = lock.withLock({ failure }) { throw failure }
    }

    /// The pack's status and counts as of the last commit; nil until a commit after `recount()`.
    var progress: PackProgress? { lock.withLock { committed } }

    /// Counts again at the next batch: call after changing the pack's rows other than through this writer.
    func recount() {
        queue.sync {
            tally = nil
            lock.withLock { committed = nil }
        }
    }

    private func flush() {
        lock.lock()
        let items = pending
        pending = []
        pendingBytes = 0
        flushQueued = false
        let failed = failure != nil
        lock.unlock()
        guard !items.isEmpty, !failed else { return }
        do {
            try commit(items)
        } catch {
            tally = nil
            let first = lock.withLock {
                defer { failure = failure ?? error }
                return failure == nil
            }
            if first { onFailure?(error) }
        }
    }

    /// Commits `items` in one transaction; over the disk quota, in halves as far as they fit, so the
    /// pack keeps all the quota allows and the quota error still ends the run.
    private func commit(_ items: [(item: WriteItem, chunk: Int?)]) throws {
        do {
            try commitOnce(items)
        } catch let quota as DiskQuotaExceeded where items.count > 1 {
            let half = items.count / 2
            do {
                try commit(Array(items[..<half]))
                try commit(Array(items[half...]))
            } catch {
                throw quota
            }
        }
    }

    private func commitOnce(_ items: [(item: WriteItem, chunk: Int?)]) throws {
        let progress = try database.write(notBefore: notBefore) { batch -> PackProgress? in
            var counts = try tally ?? batch.counts(of: region)
            for (item, _) in items { try write(item, batch, &counts) }
            if let diskQuota { try batch.enforce(diskQuota: diskQuota) }
            if let point = resumePoint?() { try batch.setResumePoint(point, of: region) }
            let status = status?()
            if let status { try batch.setStatus(status, of: region) }
            tally = counts
            return status.map { PackProgress(status: $0, counts: counts) }
        }
        lock.withLock { committed = progress }
        onCommit?(items.compactMap(\.chunk))
    }

    /// Writes one item and adds what it changed to `counts`.
    ///
    /// A refresh (`staging`) stages new content and new memberships: the pack's live rows, and its
    /// counts, stay as they are until the switch. A 304, or a 200 with the stored bytes, renews the
    /// row's headers and `accessed` in place: the headers describe those very bytes, so every reader
    /// sees a row whose headers match its data, and a resumed refresh skips it (`accessed >= since`).
    /// Staging it instead would copy a pack whose refresh found nothing changed.
    private func write(_ item: WriteItem, _ batch: StoreBatch, _ counts: inout PackCounts) throws {
        switch item {
        case .resource(let url, let kind, let data, let headers):
            if let since = staging {
                guard try batch.storedData(ofResource: url) == data else {
                    return try batch.stageResource(url: url, kind: kind, data: data, headers: headers, for: region, since: since)
                }
                try batch.revalidateResource(url: url, headers: headers)
                return try adopt(resource: url, batch, &counts)
            }
            // Resources are few: their previous size is always looked up.
            let old = try batch.storedSize(ofResource: url)
            let added = try batch.link(resource: batch.putResource(url: url, kind: kind, data: data, headers: headers), to: region)
            counts.resources += added ? 1 : 0
            counts.resourceBytes += Int64(data.storedSize - (added ? 0 : old ?? data.storedSize))
        case .tile(let key, let data, let size, let headers, let replaces):
            // A new tile costs no lookup; a refreshed one with the same bytes only renews its headers.
            let old = replaces || staging != nil ? try batch.storedData(of: key) : nil
            if let old, old == data {
                try batch.revalidateTile(key, headers: headers)
                return try adopt(tile: key, batch, &counts)
            }
            if let since = staging {
                return try batch.stageTile(key, data: data, headers: headers, contentSize: size, for: region, since: since)
            }
            let id = try batch.putTile(key, data: data, headers: headers, contentSize: size)
            let added = try batch.link(tile: id, to: region)
            counts.tiles += added ? 1 : 0
            counts.tileBytes += Int64(data.storedSize - (added ? 0 : old?.storedSize ?? data.storedSize))
        case .revalidatedResource(let url, let headers):
            try batch.revalidateResource(url: url, headers: headers)
            try adopt(resource: url, batch, &counts)
        case .revalidatedTile(let key, let headers):
            try batch.revalidateTile(key, headers: headers)
            try adopt(tile: key, batch, &counts)
        case .adoptedResource(let url):
            try adopt(resource: url, batch, &counts)
        case .adoptedTile(let key):
            try adopt(tile: key, batch, &counts)
        case .alreadyStaged:
            break
        }
    }

    /// Adds a stored resource to the pack (a refresh: stages the membership for its switch).
    private func adopt(resource url: String, _ batch: StoreBatch, _ counts: inout PackCounts) throws {
        guard let since = staging else { return counts.add(resource: try batch.adoptResource(url: url, into: region)) }
        try batch.stageMembership(ofResource: url, for: region, since: since)
    }

    /// Adds a stored tile to the pack (a refresh: stages the membership for its switch).
    private func adopt(tile key: TileKey, _ batch: StoreBatch, _ counts: inout PackCounts) throws {
        guard let since = staging else { return counts.add(tile: try batch.adoptTile(key, into: region)) }
        try batch.stageMembership(of: key, for: region, since: since)
    }
}

private extension PackCounts {
    mutating func add(resource adoption: StoreBatch.Adoption?) {
        guard let adoption, adoption.added else { return }
        resources += 1
        resourceBytes += Int64(adoption.storedSize)
    }

    mutating func add(tile adoption: StoreBatch.Adoption?) {
        guard let adoption, adoption.added else { return }
        tiles += 1
        tileBytes += Int64(adoption.storedSize)
    }
}
