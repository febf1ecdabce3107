import Foundation
import PackStore

/// What the filesystem asks of the pack manager that the executable wires in (PackFS never
/// imports the downloader). Called on FUSE threads: an implementation validates and records
/// quickly and downloads elsewhere, never waiting on the network here.
public protocol PackController: AnyObject, Sendable {
    /// The region file for pack `name` was written and closed with `content`: create the pack,
    /// or redefine it, and start downloading. `.rejected` fails close() with EINVAL.
    func regionFileClosed(name: String, content: Data) -> RegionFileVerdict
    /// `rm packs/<name>.region`, `rmdir packs/<name>`: stop the pack's download, remove the pack.
    func removePack(_ region: RegionID) throws
    /// `touch packs/<name>.region`: revalidate every resource of the pack.
    func refreshPack(_ region: RegionID)
    /// `user.packfs.state` set to `active` (resume) or `inactive` (suspend).
    func setPackActive(_ region: RegionID, _ active: Bool)
}

public enum RegionFileVerdict: Equatable, Sendable {
    case accepted
    /// The definition is refused: close() fails with EINVAL and `packs/<name>.error` says why.
    case rejected(reason: String)
}

/// The reasons of rejected region files by pack name (`packs/<name>.error`), each with a serial
/// number that its inode carries. Kept in memory: an error file lasts for the mount, and the
/// next accepted region file for the name clears it.
final class Rejections: @unchecked Sendable {
    struct Rejection: Equatable {
        var serial: UInt32
        var name: String
        var reason: String
    }

    private let lock = NSLock()
    private var byName: [String: Rejection] = [:]
    private var nextSerial: UInt32 = 1

    /// Records the reason `name`'s last region file was refused (a fresh inode each time, so a
    /// cached old reason is never shown).
    func record(name: String, reason: String) {
        lock.withLock {
            byName[name] = Rejection(serial: nextSerial, name: name, reason: reason)
            nextSerial &+= 1
        }
    }

    func clear(name: String) { lock.withLock { byName[name] = nil } }

    func rejection(named name: String) -> Rejection? { lock.withLock { byName[name] } }

    func rejection(_ serial: UInt32) -> Rejection? { lock.withLock { byName.values.first { $0.serial == serial } } }

    /// Every rejection, by name.
    var all: [Rejection] { lock.withLock { byName.values.sorted { $0.name < $1.name } } }
}

extension PackFilesystem {
    /// The write side's hook: a region file for `name` was refused with `reason`
    /// (`packs/<name>.error` appears), or accepted (`reason == nil`: the error file goes).
    public func recordRegionFileVerdict(name: String, reason: String?) {
        if let reason { rejections.record(name: name, reason: reason) } else { rejections.clear(name: name) }
    }
}
