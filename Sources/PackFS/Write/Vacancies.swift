import Basics
import FoundationEssentials
import PackStore

/// Directories inside packs that `rm` emptied, kept until their `rmdir` or the pack's removal, as on a disk. `<z>/<x>/`
/// and font stacks are not stored but derived from the rows under them, so an emptied one would vanish before `rm -r`'s
/// rmdir (or its next unlink in the stack), which would fail with ENOENT.
final class Vacancies: Sendable {
    /// Per view: the primary source shows at the pack's top and under `sources/`, and rm -r empties
    /// one view through the other before removing it.
    struct TileDirectory: Hashable {
        var region: RegionID
        var source: SourceRef
        var z: Int
        /// nil: the `<z>/` directory itself.
        var x: Int?
    }

    struct Stack: Hashable {
        var region: RegionID
        var id: ResourceID
    }

    private struct State {
        var tileDirectories: Set<TileDirectory> = []
        var stackNames: [Stack: String] = [:]
    }

    private let state = LockedState(State())

    /// A tile under `<z>/<x>/` of source number `source` was unlinked: both views keep them.
    func vacate(region: RegionID, source: Int, z: Int, x: Int) {
        state.withLock { state in
            for primary in [false, true] {
                let ref = SourceRef(index: source, primary: primary)
                state.tileDirectories.insert(TileDirectory(region: region, source: ref, z: z, x: nil))
                state.tileDirectories.insert(TileDirectory(region: region, source: ref, z: z, x: x))
            }
        }
    }

    /// A range of the font stack `name` (directory named by row `id`) was unlinked.
    func vacate(region: RegionID, stack id: ResourceID, name: String) {
        state.withLock { $0.stackNames[Stack(region: region, id: id)] = name }
    }

    func holds(region: RegionID, source: SourceRef, z: Int, x: Int? = nil) -> Bool {
        state.withLock { $0.tileDirectories.contains(TileDirectory(region: region, source: source, z: z, x: x)) }
    }

    func stackName(region: RegionID, id: ResourceID) -> String? {
        state.withLock { $0.stackNames[Stack(region: region, id: id)] }
    }

    /// The directory row id of the emptied stack `name`.
    func stack(region: RegionID, named name: String) -> ResourceID? {
        state.withLock { $0.stackNames.first { $0.key.region == region && $0.value == name }?.key.id }
    }

    /// `rmdir` of an emptied directory: it goes now.
    func remove(_ node: Node) {
        state.withLock { state in
            switch node {
            case .zoom(let region, let ref, let z):
                state.tileDirectories.remove(TileDirectory(region: region, source: ref, z: z, x: nil))
            case .column(let region, let ref, let z, let x):
                state.tileDirectories.remove(TileDirectory(region: region, source: ref, z: z, x: x))
            case .fontStack(let region, let id): state.stackNames[Stack(region: region, id: id)] = nil
            default: break
            }
        }
    }

    /// The pack is gone (or redefined): none of its emptied directories stay.
    func remove(region: RegionID) {
        state.withLock { state in
            state.tileDirectories = state.tileDirectories.filter { $0.region != region }
            state.stackNames = state.stackNames.filter { $0.key.region != region }
        }
    }
}
