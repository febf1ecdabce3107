import CCrypto

/// SHA-256 from libcrypto, for the payload hash each signed S3 request carries (see ObjectStorage.swift).
struct SHA256 {
    private var context = SHA256_CTX()

    init() { SHA256_Init(&context) }

    /// The hash of `bytes`, as 64 lowercase hex digits.
    static func hex(_ bytes: UnsafeRawBufferPointer) -> String {
        var hash = SHA256()
        hash.update(bytes)
        let digits = Array("0123456789abcdef".utf8)
        return String(decoding: hash.finish().flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 15)]] }, as: UTF8.self)
    }

    mutating func update(_ bytes: UnsafeRawBufferPointer) {
        guard !bytes.isEmpty, let base = bytes.baseAddress else { return }
        SHA256_Update(&context, base, bytes.count)
    }

    /// The digest; the value is spent.
    mutating func finish() -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: Int(SHA256_DIGEST_LENGTH))
        SHA256_Final(&digest, &context)
        return digest
    }
}
