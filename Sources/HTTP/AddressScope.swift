/// What kind of network an IP address belongs to (docs/design.md §4): an address that is not
/// `public` is reached only from a trusted origin. It judges the address libcurl is about to
/// connect to, after name resolution, as bytes, so every spelling of an address (`127.1`,
/// `[::ffff:127.0.0.1]`, a name resolving to it) meets the same judgement.
public enum AddressScope: String, Sendable, Equatable {
    case `public`
    case loopback
    case linkLocal = "link-local"
    case `private`
    case uniqueLocal = "unique-local"
    /// 100.64.0.0/10, carrier-grade NAT (RFC 6598).
    case shared = "shared (CGNAT)"
    case unspecified
    case multicast
    case broadcast
    /// Reserved ranges (240.0.0.0/4, IPv4-compatible IPv6, deprecated site-local) and families
    /// other than IPv4 and IPv6: nothing a map server is found at.
    case reserved

    /// The scope of an IPv4 (4 bytes) or IPv6 (16 bytes) address; any other length is `reserved`.
    public init(address bytes: [UInt8]) {
        switch bytes.count {
        case 4: self = Self.ipv4(bytes[0], bytes[1], bytes[2], bytes[3])
        case 16: self = Self.ipv6(bytes)
        default: self = .reserved
        }
    }

    private static func ipv4(_ a: UInt8, _ b: UInt8, _ c: UInt8, _ d: UInt8) -> AddressScope {
        switch (a, b) {
        case (0, _): return .unspecified  // "this network", 0.0.0.0/8
        case (10, _), (172, 16...31), (192, 168): return .private
        case (100, 64...127): return .shared
        case (127, _): return .loopback
        case (169, 254): return .linkLocal
        case (224...239, _): return .multicast
        case (255, 255) where c == 255 && d == 255: return .broadcast
        case (240...255, _): return .reserved
        default: return .public
        }
    }

    private static func ipv6(_ bytes: [UInt8]) -> AddressScope {
        let head = bytes.prefix(12)
        let tail = Array(bytes.suffix(4))
        if head.allSatisfy({ $0 == 0 }) {
            // ::, ::1, and the deprecated IPv4-compatible ::a.b.c.d.
            if tail == [0, 0, 0, 0] { return .unspecified }
            if tail == [0, 0, 0, 1] { return .loopback }
            return .reserved
        }
        // IPv4-mapped ::ffff:a.b.c.d: the kernel connects to the IPv4 address.
        if head.prefix(10).allSatisfy({ $0 == 0 }), bytes[10] == 0xFF, bytes[11] == 0xFF {
            return AddressScope(address: tail)
        }
        // NAT64 (64:ff9b::/96) and 6to4 (2002::/16) carry an IPv4 address that is reached in the end.
        if bytes.prefix(12) == [0, 0x64, 0xFF, 0x9B, 0, 0, 0, 0, 0, 0, 0, 0] { return AddressScope(address: tail) }
        if bytes[0] == 0x20, bytes[1] == 0x02 { return AddressScope(address: Array(bytes[2..<6])) }
        switch (bytes[0], bytes[1] & 0xC0) {
        case (0xFE, 0x80): return .linkLocal  // fe80::/10
        case (0xFE, 0xC0): return .reserved  // fec0::/10, site-local, deprecated
        default: break
        }
        if bytes[0] & 0xFE == 0xFC { return .uniqueLocal }  // fc00::/7
        if bytes[0] == 0xFF { return .multicast }
        return .public
    }

    /// The address as text: dotted IPv4, or IPv6 with its longest run of zero groups as `::`.
    public static func text(of bytes: [UInt8]) -> String {
        if bytes.count == 4 { return bytes.map(String.init).joined(separator: ".") }
        guard bytes.count == 16 else { return "an address of another family" }
        if bytes.prefix(10).allSatisfy({ $0 == 0 }), bytes[10] == 0xFF, bytes[11] == 0xFF {
            return "::ffff:" + text(of: Array(bytes.suffix(4)))
        }
        let groups = stride(from: 0, to: 16, by: 2).map { UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]) }
        var best = 0..<0
        var start = 0
        for index in 0...groups.count {
            if index < groups.count, groups[index] == 0 { continue }
            if index - start > best.count, index - start >= 2 { best = start..<index }
            start = index + 1
        }
        let text = { (part: ArraySlice<UInt16>) in part.map { String($0, radix: 16) }.joined(separator: ":") }
        guard !best.isEmpty else { return text(groups[...]) }
        return text(groups[..<best.lowerBound]) + "::" + text(groups[best.upperBound...])
    }
}
