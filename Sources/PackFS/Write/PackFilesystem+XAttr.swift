import Basics
import FoundationEssentials
import PackStore

/// The two extended attributes of a pack's region file. Unknown `user.` names read as ENODATA, other
/// namespaces as ENOTSUP; setting one is ENOTSUP (`cp -a` and `mv` skip that quietly), EROFS inside
/// a pack. `user.packfs.progress` is read-only and neither can be removed (EPERM).
enum PackAttribute: String, CaseIterable {
    /// inactive | active | complete | error; takes `active` (resume) or `inactive` (suspend).
    case state = "user.packfs.state"
    /// The pack's progress.json.
    case progress = "user.packfs.progress"
}

extension PackFilesystem {
    public func getxattr(inode: Inode, name: String) throws -> Data {
        try serving { request in
            // The name first: `ls -l` asks every file for security.selinux and posix ACLs, and stops
            // asking a device that answers ENOTSUP, which saves `ls -lR` a round trip per file.
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

    /// Only an active or inactive pack can be suspended: on another, `inactive` would change nothing,
    /// so it fails (EINVAL) rather than pretend.
    private func checkSuspendable(_ region: RegionID, name: String) throws {
        let state = try database.status(of: region).state
        guard state == .active || state == .inactive else {
            throw FilesystemError.invalid("\(name) cannot be inactive: the pack is \(state.rawValue), not downloading")
        }
    }

    /// The two attributes always exist (EPERM); no other does (ENODATA); EROFS inside a pack.
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

    /// The pack whose region file `inode` is; nil for any other node that exists.
    private func regionOfRegionFile(_ inode: Inode, _ request: Request) throws -> RegionID? {
        let node = try node(inode)
        _ = try attributes(of: node, inode: inode, request)
        guard case .pack(let region, .regionFile) = node else { return nil }
        return region
    }
}
