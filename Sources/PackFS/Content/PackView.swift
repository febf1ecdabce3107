import FoundationEssentials
import PackStore

/// A pack's row, state and layout as one request read them, kept in `ContentCache` under the store's `cacheGeneration`
/// read before: while it has not moved, no pack or state changed, so a cold tile lookup takes one lock instead of
/// three. A change the count does not see (a refresh's new style) drops the view through `TreeCaches.forgetPack`.
/// A class, never changed once made: a request takes it with one retain, not one for each string and array in it.
final class PackView: Sendable {
    let generation: UInt64
    let pack: Pack
    let state: PackState
    let layout: PackLayout?
    /// When the layout was read while the pack downloads (see `LayoutCache.lifetime`); nil once settled.
    let layoutRead: Date?

    init(generation: UInt64, pack: Pack, state: PackState, layout: PackLayout?, layoutRead: Date?) {
        self.generation = generation
        self.pack = pack
        self.state = state
        self.layout = layout
        self.layoutRead = layoutRead
    }

    /// The layout, if kept and still young enough to use.
    var usableLayout: PackLayout? {
        guard let layout else { return nil }
        guard let layoutRead else { return layout }
        return Date().timeIntervalSince(layoutRead) < LayoutCache.lifetime ? layout : nil
    }
}

extension ContentCache {
    func view(of region: RegionID, generation: UInt64) -> PackView? {
        state.withLock { state in
            // The pack asked for last, unhashed: a map reads one pack's tiles at a time.
            let view = state.lastView?.pack.id == region ? state.lastView : state.views[region]
            return view.flatMap { $0.generation == generation ? $0 : nil }
        }
    }

    /// Keeps `view` unless one of a later generation is kept already.
    func keep(_ view: PackView) {
        state.withLock { state in
            guard (state.views[view.pack.id]?.generation ?? 0) <= view.generation else { return }
            state.views[view.pack.id] = view
            state.lastView = view
        }
    }
}
