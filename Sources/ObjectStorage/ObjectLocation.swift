/// An object in a bucket: `s3://bucket/key`, as the AWS CLI writes it.
public struct ObjectLocation: Equatable, Sendable, CustomStringConvertible {
    public var bucket: String
    /// The key as given: `/`s and all, never percent-encoded.
    public var key: String

    public var description: String { "s3://\(bucket)/\(key)" }

    /// The key's last `/`-separated part: the object's file name.
    public var name: Substring { key.split(separator: "/", omittingEmptySubsequences: false).last ?? Substring(key) }

    /// The object named `name` beside this one (same bucket, same key prefix).
    public func sibling(named name: String) -> ObjectLocation {
        ObjectLocation(bucket: bucket, key: String(key.dropLast(self.name.count)) + name)
    }

    static func isBucketName(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        let allowed = { (byte: UInt8) in (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }
        guard (3...63).contains(bytes.count), let first = bytes.first, let last = bytes.last, allowed(first), allowed(last) else {
            return false
        }
        return bytes.allSatisfy { allowed($0) || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "-") }
    }
}

extension ObjectLocation {
    /// Parses `s3://bucket/key`: the bucket by S3's rules for new buckets, the key all after its `/`, at most 1024
    /// bytes, with no control characters.
    public init(url: String) throws {
        let scheme = "s3://"
        guard url.lowercased().hasPrefix(scheme) else { throw ObjectStorageError.badURL(url, "it does not start with s3://") }
        let rest = url.dropFirst(scheme.count)
        guard let slash = rest.firstIndex(of: "/") else { throw ObjectStorageError.badURL(url, "no key after the bucket") }
        let bucket = String(rest[..<slash]), key = String(rest[rest.index(after: slash)...])
        guard !bucket.isEmpty else { throw ObjectStorageError.badURL(url, "no bucket") }
        guard Self.isBucketName(bucket) else {
            throw ObjectStorageError.badURL(url, "\"\(bucket)\" is no bucket name (3 to 63 lowercase letters, digits, dots and hyphens)")
        }
        guard !key.isEmpty else { throw ObjectStorageError.badURL(url, "no key after the bucket") }
        guard key.utf8.count <= 1024 else { throw ObjectStorageError.badURL(url, "the key is longer than S3's 1024 bytes") }
        guard !key.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
            throw ObjectStorageError.badURL(url, "the key holds a control character")
        }
        self.init(bucket: bucket, key: key)
    }
}
