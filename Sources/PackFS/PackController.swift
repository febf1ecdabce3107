import Basics
import FoundationEssentials
import PackStore

/// What the filesystem asks of the pack manager the executable wires in (PackFS never imports the
/// downloader). Called on FUSE threads: validate and record quickly, download elsewhere. A thrown
/// `FilesystemError` keeps its errno; anything else is EIO with its cause in the log.
public protocol PackController: AnyObject, Sendable {
    /// The text of `packs/<name>.region` is decided: create or redefine the pack and start
    /// downloading. A throw refuses it: its description is the reason `<name>.error` shows.
    func regionFileSubmitted(name: String, content: Data) throws
    /// `rm packs/<name>.region`, `rmdir packs/<name>`: stop the pack's runs, remove the pack.
    func removePack(_ region: RegionID) throws
    /// `touch packs/<name>.region`: revalidate every resource of the pack.
    func refreshPack(_ region: RegionID) throws
    /// `user.packfs.state` set to `active` (resume) or `inactive` (suspend).
    func setPackActive(_ region: RegionID, _ active: Bool) throws
    /// A patch copied to `packs/<name>.patch` is whole at `path`: apply it to the pack in one
    /// transaction and say what changed. Runs on the FUSE thread whose write completed the file.
    /// A throw refuses it, nothing changed: its description is the reason `<name>.error` shows.
    func patchSubmitted(_ region: RegionID, path: String, fileName: String) throws -> TileChanges
}

/// The reasons of rejected region files by pack name (`packs/<name>.error`), each with the serial
/// its inode carries. In memory: one lasts until the mount ends or the name's next accepted text.
typealias Rejections = SerialFiles<Rejection>

struct Rejection: SerialFile, Equatable {
    var serial: UInt32
    var name: String
    var reason: String
}

extension Rejections where File == Rejection {
    /// Records the reason `name`'s last region file was refused (a fresh inode each time, so a
    /// cached old reason is never shown), redacted: every reader of the mount sees it.
    func record(name: String, reason: String) {
        withTable { table in
            table.remove(named: name)
            table.add { Rejection(serial: $0, name: name, reason: Redaction.text(reason)) }
        }
    }

    func clear(name: String) { withTable { $0.remove(named: name) } }
}

extension PackFilesystem {
    /// A region file for `name` was refused with `reason`, or accepted (nil: the error file goes).
    public func recordRegionFileVerdict(name: String, reason: String?) {
        if let reason { rejections.record(name: name, reason: reason) } else { rejections.clear(name: name) }
    }
}
