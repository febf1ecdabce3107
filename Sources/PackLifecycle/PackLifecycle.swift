// PackLifecycle: starting, suspending, resuming, redefining, refreshing and removing packs, for
// the mount and anyone else who runs downloads over time (PackStore and Downloader below it,
// nothing of FUSE above it).
//
// Concepts. A *request* asks for a *run* of a pack: a download (create, redefine, resume) or a
// refresh (revalidate everything). Each pack has a *lane*: at most one run at a time, and the
// requests queued behind it. A run reads the pack's definition when it starts, so a queued download
// converges to the latest one. A download request suspends the run under way (it may follow an old
// definition); a refresh request queues without cutting it (it revalidates what that run stores).
// A request of a kind already queued joins it. A queued download marks the pack `active` at once,
// and a queued refresh is recorded (PackStore's PendingRefresh), so either, cut by a kill or an
// unmount, goes on at the next mount. `remove` and `stop` drop what is queued.
//
// Events. What the mount must forget flows one way, to the `PackEventSink` given at construction:
// a run ended, a refresh's switch replaced stored bytes, a changed definition dropped members, or
// a whole pack's hash was recorded (`PackHasher`, after the pack said `complete`).
//
// Threading. The public methods run on FUSE threads: short transactions, never a wait on the
// network. Runs go on their pack's serial queue. A suspended run cancels its requests in flight,
// so `remove` and `stop`, which wait for it to stop, never wait for an answer.
//
// Errors. A request that cannot be met throws (the mount makes it an errno). A pack that cannot
// run (definition unreadable, run failed to start or ended in error) goes to state `error` with
// the reason, and stderr gets one line, `packfs: pack <name>: <why>`.

import Downloader
import PackStore

/// What the lifecycle tells whoever shows packs (the mount's caches): events flow one way.
/// Called on a pack's run queue (or a run's writer thread for `packMembersLeft`): keep it quick.
public protocol PackEventSink: AnyObject, Sendable {
    /// A run of `region` ended (a refresh's changes came before, with `packContentSwitched`).
    func packRunEnded(_ region: RegionID, mode: PackDownload.Mode)
    /// A refresh's switch replaced stored bytes under their row ids, in its pack and in the packs
    /// sharing those rows, and may have added members; called before the pack turns `complete`.
    func packContentSwitched(_ switched: SwitchedContent)
    /// A changed definition dropped these tiles and resources (by URL) from the pack.
    func packMembersLeft(_ region: RegionID, tiles: [TileKey], resources: [String])
    /// The pack's owed hash was recorded (or given up): its progress.json no longer says `hashing`.
    func packHashed(_ region: RegionID)
}

extension PackEventSink {
    public func packHashed(_ region: RegionID) {}
}

/// Every failure of the lifecycle layer. Store failures (a bad region file, a missing pack) pass
/// through as the `StoreError` they are.
public enum LifecycleError: Error, Equatable, CustomStringConvertible {
    /// The pack cannot run: it is in state `error` with `reason`, and the log said so.
    case packFailed(name: String, reason: String)
    /// The pack is being removed: nothing more runs for it. Its name if still readable (a row id
    /// means nothing to a user).
    case packRemoved(name: String?)
    /// The manager stopped (the mount is ending): nothing more runs until the next mount.
    case stopped
    /// The pack was imported from an MBTiles or PMTiles file (`ImportedFiles`): no server holds it.
    case imported(name: String)

    public var description: String {
        switch self {
        case .packFailed(let name, let reason): return "pack \(name): \(reason)"
        case .packRemoved(let name):
            return (name.map { "pack \($0)" } ?? "the pack") + " is being removed; write its region file again once it is gone"
        case .stopped: return "the mount is stopping; the pack runs at the next mount"
        case .imported(let name):
            return "pack \(name) was imported from a file: there is no server to download or refresh it from"
        }
    }
}
