import Foundation
import PackFS
import PackStore

/// A test double of the executable's pack manager: records every call and, like the real one,
/// creates or redefines the pack in the database when a region file parses, so the tree shows
/// it; it starts no download.
final class RecordingController: PackController, @unchecked Sendable {
    enum Call: Equatable {
        case regionFileClosed(name: String, content: Data)
        case removePack(RegionID)
        case refreshPack(RegionID)
        case setPackActive(RegionID, Bool)
    }

    let database: OfflineDatabase
    private let lock = NSLock()
    private var recorded: [Call] = []

    init(database: OfflineDatabase) { self.database = database }

    var calls: [Call] { lock.withLock { recorded } }

    private func record(_ call: Call) { lock.withLock { recorded.append(call) } }

    func regionFileClosed(name: String, content: Data) -> RegionFileVerdict {
        record(.regionFileClosed(name: name, content: content))
        do {
            let file = try RegionFile.parse(content)
            if let pack = try? database.pack(named: name) {
                try database.setDefinition(pack.id, file.definition)
                try database.setMetadata(pack.id, file.metadata)
            } else {
                _ = try database.createPack(name: name, definition: file.definition, metadata: file.metadata)
            }
            return .accepted
        } catch {
            return .rejected(reason: "\(error)")
        }
    }

    func removePack(_ region: RegionID) throws {
        record(.removePack(region))
        try database.removePack(region)
    }

    func refreshPack(_ region: RegionID) { record(.refreshPack(region)) }

    func setPackActive(_ region: RegionID, _ active: Bool) { record(.setPackActive(region, active)) }
}

/// The kernel's caches as a list of what the filesystem asked them to forget.
final class RecordingKernelCache: KernelCache, @unchecked Sendable {
    enum Forget: Hashable {
        case inode(Inode)
        case entry(parent: Inode, name: String)
    }

    private let lock = NSLock()
    private var recorded: [Forget] = []

    var forgotten: [Forget] { lock.withLock { recorded } }

    func invalidate(inode: Inode) { lock.withLock { recorded.append(.inode(inode)) } }

    func invalidate(parent: Inode, name: String) { lock.withLock { recorded.append(.entry(parent: parent, name: name)) } }

    func entries(in parent: Inode) -> Set<String> {
        Set(forgotten.compactMap { if case .entry(parent, let name) = $0 { return name } else { return nil } })
    }
}
