import FoundationEssentials
import PackStore

/// A pack's row, state and layout as one request read them, kept in `ContentCache` under the store's `cacheGeneration`
/// read before: while it has not moved, no pack or state changed, so a cold tile lookup takes one lock instead of
/// three. A change the count does not see (a refresh's new style) drops the view through `TreeCaches.forgetPack`.
struct PackView {
    var generation: UInt64
    var pack: Pack
    var state: PackState
    var layout: PackLayout?
    /// When the layout was read while the pack downloads (see `LayoutCache.lifetime`); nil once settled.
    var layoutRead: Date?

    /// The layout, if kept and still young enough to use.
    var usableLayout: PackLayout? {
        guard let layout else { return nil }
        guard let layoutRead else { return layout }
        return Date().timeIntervalSince(layoutRead) < LayoutCache.lifetime ? layout : nil
    }
}

extension ContentCache {
    func view(of region: RegionID, generation: UInt64) -> PackView? {
        state.withLock { state in state.views[region].flatMap { $0.generation == generation ? $0 : nil } }
    }

    /// Keeps `view` unless one of a later generation is kept already.
    func keep(_ view: PackView) {
        state.withLock { state in
            guard (state.views[view.pack.id]?.generation ?? 0) <= view.generation else { return }
            state.views[view.pack.id] = view
        }
    }
}
