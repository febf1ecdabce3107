/// The check of every URL PackFS stores and later fetches, so a URL libcurl refuses fails when written,
/// not when fetched. libcurl's rules: no space or control byte; a non-empty RFC 3986 host (or bracketed
/// IPv6 literal); a port, if any, from 1 to 65535. Path, query and fragment are not checked: the key is
/// the URL as written, and servers take more than RFC 3986 allows. The scheme is the caller's to judge.
public enum URLSyntax {
    /// Why `url` cannot be fetched, in words that follow the URL in a message; nil when it can.
    /// `allowingTokens`: template tokens may stand in the host (`https://{prefix}.tiles.example/`).
    public static func problem(in url: String, allowingTokens: Bool = false) -> String? {
        let bytes = Array(url.utf8)
        if let problem = badByte(in: bytes) { return problem }
        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")),
            bytes[(colon + 1)...].starts(with: [UInt8(ascii: "/"), UInt8(ascii: "/")])
        else { return "has no host after its scheme (no \"//\")" }
        let start = colon + 3
        let end = bytes[start...].firstIndex { $0 == 0x2F || $0 == 0x3F || $0 == 0x23 } ?? bytes.endIndex
        var authority = bytes[start..<end]
        if let at = authority.lastIndex(of: UInt8(ascii: "@")) { authority = authority[(at + 1)...] }
        return hostAndPortProblem(authority, allowingTokens: allowingTokens)
    }

    /// A space or control byte (libcurl refuses both), with its place.
    private static func badByte(in bytes: [UInt8]) -> String? {
        guard let index = bytes.firstIndex(where: { $0 <= 0x20 || $0 == 0x7F }) else { return nil }
        if bytes[index] == 0x20 { return "contains a space (byte \(index))" }
        let hex = String(bytes[index], radix: 16, uppercase: true)
        return "contains control character 0x\(hex.count == 1 ? "0" + hex : hex) (byte \(index))"
    }

    private static func hostAndPortProblem(_ authority: ArraySlice<UInt8>, allowingTokens: Bool) -> String? {
        let text = String(decoding: authority, as: UTF8.self)
        var host = authority
        var port: ArraySlice<UInt8>?
        if authority.first == UInt8(ascii: "[") {
            guard let close = authority.firstIndex(of: UInt8(ascii: "]")) else {
                return "has an IPv6 host \"\(text)\" without its closing ]"
            }
            host = authority[authority.startIndex...close]
            let rest = authority[(close + 1)...]
            guard rest.isEmpty || rest.first == UInt8(ascii: ":") else { return "has text after the IPv6 host \"\(text)\"" }
            if !rest.isEmpty { port = rest.dropFirst() }
            guard isIPv6Literal(host.dropFirst().dropLast()) else { return "has a host \"\(text)\" that is no IPv6 address" }
        } else {
            if let colon = authority.firstIndex(of: UInt8(ascii: ":")) {
                host = authority[..<colon]
                port = authority[(colon + 1)...]
            }
            if host.isEmpty { return "has no host" }
            if let problem = regNameProblem(host, allowingTokens: allowingTokens) { return problem }
        }
        return port.flatMap(portProblem)
    }

    /// RFC 3986's reg-name: unreserved, sub-delims and percent escapes (bytes above 0x7F pass, as
    /// libcurl passes an internationalised name on to the resolver).
    private static func regNameProblem(_ host: ArraySlice<UInt8>, allowingTokens: Bool) -> String? {
        let name = String(decoding: host, as: UTF8.self)
        var index = host.startIndex
        while index < host.endIndex {
            let byte = host[index]
            if byte == UInt8(ascii: "%") {
                guard index + 2 < host.endIndex, isHex(host[index + 1]), isHex(host[index + 2]) else {
                    return "has a host \"\(name)\" with a bad percent escape"
                }
                index += 3
                continue
            }
            let token = allowingTokens && (byte == UInt8(ascii: "{") || byte == UInt8(ascii: "}"))
            guard byte >= 0x80 || token || isHostByte(byte) else {
                return "has a host \"\(name)\" holding '\(Character(Unicode.Scalar(byte)))', which no host can"
            }
            index += 1
        }
        return nil
    }

    private static func portProblem(_ port: ArraySlice<UInt8>) -> String? {
        guard !port.isEmpty else { return nil }  // "host:" is the default port (RFC 3986 3.2.3)
        let text = String(decoding: port, as: UTF8.self)
        guard port.allSatisfy(isDigit) else { return "has a port \"\(text)\" that is not a number" }
        guard port.count <= 5, let number = Int(text), (1...65535).contains(number) else {
            return "has port \(text), outside 1-65535"
        }
        return nil
    }

    /// Hex digits, colons and dots (an embedded IPv4), at least two colons; an optional zone (`%25eth0`) after them.
    private static func isIPv6Literal(_ literal: ArraySlice<UInt8>) -> Bool {
        let zone = literal.firstIndex(of: UInt8(ascii: "%")) ?? literal.endIndex
        let address = literal[..<zone]
        let colons = address.filter { $0 == UInt8(ascii: ":") }.count
        return colons >= 2 && address.allSatisfy { isHex($0) || $0 == UInt8(ascii: ":") || $0 == UInt8(ascii: ".") }
    }

    private static func isHostByte(_ byte: UInt8) -> Bool {
        isDigit(byte) || (byte | 0x20 >= 0x61 && byte | 0x20 <= 0x7A) || "-._~!$&'()*+,;=".utf8.contains(byte)
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }

    private static func isHex(_ byte: UInt8) -> Bool { hexDigitValue(byte) != nil }
}
