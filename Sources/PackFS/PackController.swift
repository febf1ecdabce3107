import Basics
import FoundationEssentials
import PackStore

/// What the filesystem asks of the pack manager that the executable wires in (PackFS never
/// imports the downloader or the lifecycle). Called on FUSE threads: an implementation validates
/// and records quickly and downloads elsewhere, never waiting on the network here. Each method
/// throws what went wrong; the filesystem turns it into the operation's errno (a `FilesystemError`
/// keeps its own, anything else is EIO with its cause in the log).
public protocol PackController: AnyObject, Sendable {
    /// The text written to `packs/<name>.region` is decided: one complete JSON object (or text no
    /// further bytes can make one), or its last writer went. Create the pack, or redefine it, and
    /// start downloading. A throw refuses the text: its description is the one-line reason
    /// `packs/<name>.error` shows, and the write that decided the text fails with EINVAL.
    func regionFileSubmitted(name: String, content: Data) throws
    /// `rm packs/<name>.region`, `rmdir packs/<name>`: stop the pack's runs, remove the pack.
    func removePack(_ region: RegionID) throws
    /// `touch packs/<name>.region`: revalidate every resource of the pack.
    func refreshPack(_ region: RegionID) throws
    /// `user.packfs.state` set to `active` (resume) or `inactive` (suspend).
    func setPackActive(_ region: RegionID, _ active: Bool) throws
    /// A patch copied to `packs/<name>.patch` is whole, in the file at `path` (`fileName` is the
    /// name it was copied to, for messages): apply it to pack `region` in one transaction and
    /// say what changed. Runs on the FUSE thread whose write completed the file, which waits
    /// for the verdict. A throw refuses it, nothing changed: its description is the reason
    /// `packs/<name>.error` shows, and that write fails with EINVAL.
    func patchSubmitted(_ region: RegionID, path: String, fileName: String) throws -> TileChanges
}

/// The reasons of rejected region files by pack name (`packs/<name>.error`), each with a serial
/// number that its inode carries. Kept in memory: an error file lasts for the mount, and the
/// next accepted region file for the name clears it.
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
    /// The write side's hook: a region file for `name` was refused with `reason`
    /// (`packs/<name>.error` appears), or accepted (`reason == nil`: the error file goes).
    public func recordRegionFileVerdict(name: String, reason: String?) {
        if let reason { rejections.record(name: name, reason: reason) } else { rejections.clear(name: name) }
    }
}
