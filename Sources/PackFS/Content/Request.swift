import FoundationEssentials
import PackStore

/// One FUSE request's reads of the pack it concerns: the pack, its state and its layout, each read at most once, and
/// none while an earlier request's `PackView` holds. Dropped with the request, so the next one sees the store as it is
/// then; a request that changes the pack calls `forget`. One slot (a second pack is read afresh), one thread (no lock).
final class Request {
    private let filesystem: PackFilesystem
    private var memo: Memo?

    private struct Memo {
        var region: RegionID
        /// The kept view the request began from, whose pack it reads without a copy; nil when read afresh.
        var view: PackView?
        var freshPack: Pack?
        var layout: PackLayout?
        var state: PackState?
        var fontStacks: [PackFilesystem.FontStack]?
        /// The store's count the pack was read under (`PackView`), nil where nothing is kept.
        var generation: UInt64?

        /// Every memo holds one of the two.
        var pack: Pack? { view?.pack ?? freshPack }
    }

    init(_ filesystem: PackFilesystem) { self.filesystem = filesystem }

    /// The pack `region` names now; `.stale` when it was removed.
    func pack(_ region: RegionID) throws -> Pack {
        try begin(region)
        guard let pack = memo?.pack else { throw FilesystemError.stale }
        return pack
    }

    /// Reads the pack `region` names into the memo (or takes its kept view), unless it is there.
    private func begin(_ region: RegionID) throws {
        if memo?.region == region { return }
        let generation = filesystem.database.cacheGeneration
        if let generation, let view = filesystem.cache.view(of: region, generation: generation) {
            memo = Memo(region: region, view: view, layout: view.usableLayout, state: view.state, generation: generation)
            return
        }
        let pack = try filesystem.currentPack(region)
        memo = Memo(region: region, freshPack: pack, generation: generation)
    }

    /// A pack this request found by name (in `packs/`): its entry needs no second read of it.
    func found(_ pack: Pack) {
        guard memo?.region != pack.id else { return }
        memo = Memo(region: pack.id, freshPack: pack)
    }

    /// The pack's layout (`TreeCaches`), kept in the pack's view.
    func layout(_ region: RegionID) throws -> PackLayout {
        try begin(region)
        if let layout = memo?.layout, memo?.region == region { return layout }
        let layout = try filesystem.caches.layout(of: try pack(region))
        if memo?.region == region {
            memo?.layout = layout
            let state = try state(region)
            keepView(state: state, layoutRead: state == .active ? Date() : nil)
        }
        return layout
    }

    /// The pack's font stacks, read once per request: a stack's listing looks up up to 256 files.
    func fontStacks(_ region: RegionID) throws -> [PackFilesystem.FontStack] {
        let layout = try layout(region)
        if let stacks = memo?.fontStacks, memo?.region == region { return stacks }
        let stacks = try PackFilesystem.fontStacks(layout, in: filesystem.database)
        if memo?.region == region { memo?.fontStacks = stacks }
        return stacks
    }

    /// The layout and the source `ref` names; `.stale` when the style no longer has it.
    func source(_ region: RegionID, _ ref: SourceRef) throws -> (PackLayout, PackLayout.Source) {
        let layout = try layout(region)
        guard let source = layout.source(ref) else { throw FilesystemError.stale }
        return (layout, source)
    }

    /// Whether the pack is complete: its directories no longer change.
    func isComplete(_ region: RegionID) throws -> Bool {
        try state(region) == .complete
    }

    private func state(_ region: RegionID) throws -> PackState {
        try begin(region)
        if let state = memo?.state, memo?.region == region { return state }
        let state = try filesystem.database.status(of: region).state
        if memo?.region == region { memo?.state = state }
        return state
    }

    /// Keeps what this request read of its pack for the next ones, under the count read before it.
    private func keepView(state: PackState, layoutRead: Date?) {
        guard let memo, let generation = memo.generation, let pack = memo.pack else { return }
        filesystem.cache.keep(PackView(generation: generation, pack: pack, state: state, layout: memo.layout, layoutRead: layoutRead))
    }

    /// Drops what was read of the pack: this request changed it.
    func forget() { memo = nil }
}
