import Foundation
import PackStore

/// One finished piece of a download, waiting to be written.
enum WriteItem {
    case resource(url: String, kind: ResourceKind, data: StoredData, headers: CacheHeaders)
    case tile(TileKey, data: StoredData, headers: CacheHeaders)
    /// A 304: content stays, validators and `accessed` are renewed.
    case revalidatedResource(url: String, headers: CacheHeaders)
    case revalidatedTile(TileKey, headers: CacheHeaders)
    /// Already stored (by any pack or the ambient cache): only the membership row is added.
    case adoptedResource(url: String)
    case adoptedTile(TileKey)

    var isTile: Bool {
        switch self {
        case .tile, .revalidatedTile, .adoptedTile: return true
        default: return false
        }
    }
}

/// Collects finished downloads from the HTTP thread and writes them into the pack in batches,
/// one transaction each, on a thread of its own, so that neither the network loop nor FUSE
/// readers wait for SQLite. A crash loses at most the batch not yet committed; everything
/// committed stays (and resuming adopts it instead of fetching it again).
final class BatchWriter: @unchecked Sendable {
    private let database: OfflineDatabase
    private let region: RegionID
    private let maxItems: Int
    private let maxDelay: TimeInterval
    private let queue = DispatchQueue(label: "packfs.batch-writer")
    private let lock = NSLock()
    private var pending: [WriteItem] = []
    private var flushQueued = false
    private var failure: Error?
    /// Called on the writer thread after each commit with the items it held.
    var onCommit: (([WriteItem]) -> Void)?
    /// Written in the same transaction as each batch, so state and content never disagree.
    var status: (() -> PackStatus)?

    // 2048 items per batch was tried (fewer commits and fsyncs): no measurable gain over 512.
    init(database: OfflineDatabase, region: RegionID, maxItems: Int = 512, maxDelay: TimeInterval = 0.2) {
        self.database = database
        self.region = region
        self.maxItems = maxItems
        self.maxDelay = maxDelay
    }

    /// Thread-safe; returns at once.
    func add(_ item: WriteItem) {
        lock.lock()
        pending.append(item)
        let count = pending.count
        let flushNow = count >= maxItems && !flushQueued
        if flushNow { flushQueued = true }
        lock.unlock()
        if flushNow {
            queue.async { self.flush() }
        } else if count == 1 {
            queue.asyncAfter(deadline: .now() + maxDelay) { self.flush() }
        }
    }

    /// Writes what is pending and waits for it; rethrows the first write failure.
    func finish() throws {
        queue.sync { flush() }
        lock.lock()
        defer { lock.unlock() }
        if let failure { throw failure }
    }

    /// The first write failure, if any (a full disk, a database error).
    var error: Error? {
        lock.lock()
        defer { lock.unlock() }
        return failure
    }

    private func flush() {
        lock.lock()
        let items = pending
        pending = []
        flushQueued = false
        let failed = failure != nil
        lock.unlock()
        guard !items.isEmpty, !failed else { return }
        do {
            try database.write { batch in
                for item in items { try write(item, batch) }
                if let status { try batch.setStatus(status(), of: region) }
            }
            onCommit?(items)
        } catch {
            lock.lock()
            failure = failure ?? error
            lock.unlock()
        }
    }

    private func write(_ item: WriteItem, _ batch: StoreBatch) throws {
        switch item {
        case .resource(let url, let kind, let data, let headers):
            try batch.link(resource: batch.putResource(url: url, kind: kind, data: data, headers: headers), to: region)
        case .tile(let key, let data, let headers):
            try batch.link(tile: batch.putTile(key, data: data, headers: headers), to: region)
        case .revalidatedResource(let url, let headers):
            try batch.revalidateResource(url: url, headers: headers)
            _ = try batch.adoptResource(url: url, into: region)
        case .revalidatedTile(let key, let headers):
            try batch.revalidateTile(key, headers: headers)
            _ = try batch.adoptTile(key, into: region)
        case .adoptedResource(let url):
            _ = try batch.adoptResource(url: url, into: region)
        case .adoptedTile(let key):
            _ = try batch.adoptTile(key, into: region)
        }
    }
}
