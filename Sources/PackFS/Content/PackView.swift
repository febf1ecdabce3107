import FoundationEssentials
import PackStore

/// What requests read of one pack that later requests may use without reading it again: its row,
/// its state and its layout, kept in `ContentCache` under the store's `cacheGeneration` read
/// before them. While the count has not moved no pack was added, renamed or removed and no state
/// changed, so a cold tile lookup finds its pack and layout with one lock (the cache's) instead
/// of the pack list's, the status cache's and the layout cache's, and no search of the list.
/// A change the count does not see (a refresh's new style) goes through `TreeCaches.forgetPack`,
/// which drops the view with the pack's other entries.
struct PackView {
    var generation: UInt64
    var pack: Pack
    var state: PackState
    var layout: PackLayout?
    /// When the layout was read, while the pack downloads (it is read again after
    /// `LayoutCache.lifetime`, as `LayoutCache` does); nil once settled (kept until forgotten).
    var layoutRead: Date?

    /// The layout, if kept and still young enough to use.
    var usableLayout: PackLayout? {
        guard let layout else { return nil }
        guard let layoutRead else { return layout }
        return Date().timeIntervalSince(layoutRead) < LayoutCache.lifetime ? layout : nil
    }
}

extension ContentCache {
    /// The view of `region` kept under `generation`, if any.
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
