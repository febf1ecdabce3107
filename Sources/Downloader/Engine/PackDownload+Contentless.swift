import PackStore
import StyleModel

/// A pack whose plan needs tiles but that holds none with content (404 or 204 for every one) is
/// no map: it ends in `error`, not `complete` (docs/design.md §4). A plan with no tiles is left alone.
extension PackDownload {
    /// Why a run that reached its end with `status` is not complete; nil when it is.
    func contentlessReason(_ status: PackStatus) -> String? {
        guard status.requiredTiles > 0, let sample = try? database.contentlessTileSample(of: region) else { return nil }
        return "none of the pack's \(status.requiredTiles) tiles could be stored: the server had no content "
            + "(404 or 204) for every one, e.g. \(TileURLTemplate.url(for: sample))"
    }
}
