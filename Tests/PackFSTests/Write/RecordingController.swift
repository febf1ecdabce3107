import Foundation
import PackFS
import PackStore

/// A test double of the executable's pack manager: records every call and, like the real one,
/// creates or redefines the pack in the database when a region file parses, so the tree shows
/// it; it starts no download.
final class RecordingController: PackController, @unchecked Sendable {  // `recorded` is guarded by `lock`
    enum Call: Equatable {
        case regionFileSubmitted(name: String, content: Data)
        case removePack(RegionID)
        case refreshPack(RegionID)
        case setPackActive(RegionID, Bool)
        case patchSubmitted(RegionID, bytes: Int, fileName: String)
    }

    let database: OfflineDatabase
    private let lock = NSLock()
    private var recorded: [Call] = []

    init(database: OfflineDatabase) { self.database = database }

    var calls: [Call] { lock.withLock { recorded } }

    private func record(_ call: Call) { lock.withLock { recorded.append(call) } }

    func regionFileSubmitted(name: String, content: Data) throws {
        record(.regionFileSubmitted(name: name, content: content))
        let file = try RegionFile.parse(content)
        _ = try database.definePack(name: name, definition: file.definition, metadata: file.metadata)
    }

    func removePack(_ region: RegionID) throws {
        record(.removePack(region))
        try database.removePack(region)
    }

    func refreshPack(_ region: RegionID) throws { record(.refreshPack(region)) }

    func setPackActive(_ region: RegionID, _ active: Bool) throws { record(.setPackActive(region, active)) }

    /// Records the patch's size and changes nothing: a patch's application is Interchange's
    /// (tested with the real manager on a mount); this tests the file's way there.
    func patchSubmitted(_ region: RegionID, path: String, fileName: String) throws -> TileChanges {
        let bytes = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? -1
        record(.patchSubmitted(region, bytes: bytes, fileName: fileName))
        let set = TileColumnSet(region: region, urlTemplate: "x", pixelRatio: 1)
        return TileChanges(columns: set, source: "x")
    }
}

/// The kernel's caches as a list of what the filesystem asked them to forget.
final class RecordingKernelCache: KernelCache, @unchecked Sendable {  // `recorded` is guarded by `lock`
    enum Forget: Hashable {
        case inode(Inode)
        case entry(parent: Inode, name: String)
    }

    private let lock = NSLock()
    private var recorded: [Forget] = []

    var forgotten: [Forget] { lock.withLock { recorded } }

    func invalidate(inode: Inode) { lock.withLock { recorded.append(.inode(inode)) } }

    func invalidate(parent: Inode, name: String) { lock.withLock { recorded.append(.entry(parent: parent, name: name)) } }

    func invalidateNow(inodes: [Inode], entries: [(parent: Inode, name: String)]) {
        inodes.forEach(invalidate(inode:))
        entries.forEach { invalidate(parent: $0.parent, name: $0.name) }
    }

    func entries(in parent: Inode) -> Set<String> {
        Set(forgotten.compactMap { if case .entry(parent, let name) = $0 { return name } else { return nil } })
    }
}
