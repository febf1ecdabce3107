import Basics
import FoundationEssentials
import PackStore

/// The two extended attributes of a pack's region file. Unknown `user.` names read as ENODATA,
/// names of other namespaces as ENOTSUP (none is kept); setting
/// one is ENOTSUP (PackFS keeps no arbitrary attributes, and `cp -a`/`mv` skip ENOTSUP quietly)
/// except inside a pack, where every change is EROFS. `user.packfs.progress` is read-only
/// (EPERM), and neither can be removed (EPERM). A region file still being written for a new
/// name has no pack, hence no attributes.
enum PackAttribute: String, CaseIterable {
    /// inactive | active | complete | error; takes `active` (resume) or `inactive` (suspend: only
    /// an active or inactive pack; EINVAL for a complete pack or one in error).
    case state = "user.packfs.state"
    /// The pack's progress.json.
    case progress = "user.packfs.progress"
}

extension PackFilesystem {
    public func getxattr(inode: Inode, name: String) throws -> Data {
        try serving { request in
            // The name first: `ls -l` asks every file for security.selinux and
            // system.posix_acl_access. PackFS keeps attributes in the `user.` namespace only, and
            // says so for the others (ENOTSUP, not ENODATA): ls then stops asking the mount's
            // files (it remembers a device that lacks the support), which saves `ls -lR` of a
            // 1,000,000-tile pack a round trip per file.
            guard name.hasPrefix("user.") else { throw FilesystemError.notSupported }
            guard let attribute = PackAttribute(rawValue: name), let region = try regionOfRegionFile(inode, request)
            else { throw FilesystemError.noAttribute }
            switch attribute {
            case .state: return Data(try database.status(of: region).state.rawValue.utf8)
            case .progress:
                let node = Node.pack(region, .progress)
                return try content(of: node, inode: try InodeCodec.encode(node), request)
            }
        }
    }

    public func setxattr(inode: Inode, name: String, value: Data, caller: Caller) throws {
        try serving { request in
            guard let region = try regionOfRegionFile(inode, request), let attribute = PackAttribute(rawValue: name)
            else { throw try refusal(at: inode) == .readOnly ? FilesystemError.readOnly : .notSupported }
            guard attribute == .state else { throw FilesystemError.notPermitted }
            // `echo active | attr -s ...` and friends may add a newline.
            let text = String(decoding: value, as: UTF8.self).trimmed
            guard let active = ["active": true, "inactive": false][text] else {
                throw FilesystemError.invalid("\(name) takes active or inactive, not \"\(text)\"")
            }
            guard let controller else { throw FilesystemError.notPermitted }
            if !active { try checkSuspendable(region, name: name) }
            try controller.setPackActive(region, active)
        }
    }

    /// Only a pack that is downloading (or suspended already) can be suspended: `inactive` on a
    /// complete pack or one in `error` would change nothing, and a write that cannot take effect
    /// fails (EINVAL, as a value the attribute does not take now) rather than pretend.
    private func checkSuspendable(_ region: RegionID, name: String) throws {
        let state = try database.status(of: region).state
        guard state == .active || state == .inactive else {
            throw FilesystemError.invalid("\(name) cannot be inactive: the pack is \(state.rawValue), not downloading")
        }
    }

    /// The two attributes always exist (EPERM); no other does (ENODATA), except inside a pack,
    /// where every change is EROFS.
    public func removexattr(inode: Inode, name: String, caller: Caller) throws {
        try serving { request in
            if try refusal(at: inode) == .readOnly { throw FilesystemError.readOnly }
            guard try regionOfRegionFile(inode, request) != nil, PackAttribute(rawValue: name) != nil else {
                throw FilesystemError.noAttribute
            }
            throw FilesystemError.notPermitted
        }
    }

    public func listxattr(inode: Inode) throws -> [String] {
        try serving { request in
            try regionOfRegionFile(inode, request) == nil ? [] : PackAttribute.allCases.map(\.rawValue)
        }
    }

    /// The pack whose region file `inode` is; nil for any other node that exists (.stale when
    /// it does not).
    private func regionOfRegionFile(_ inode: Inode, _ request: Request) throws -> RegionID? {
        let node = try node(inode)
        _ = try attributes(of: node, inode: inode, request)
        guard case .pack(let region, .regionFile) = node else { return nil }
        return region
    }
}
