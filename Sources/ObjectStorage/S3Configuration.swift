/// Where and as whom to reach S3: credentials, region and endpoint, from the AWS environment or the caller's options.
public struct S3Configuration: Equatable, Sendable {
    public var accessKeyID: String
    public var secretAccessKey: String
    /// Temporary credentials' token (`x-amz-security-token`).
    public var sessionToken: String?
    public var region = "us-east-1"
    /// An S3-compatible server (MinIO, moto, R2...): path-style URLs under it; nil: AWS, virtual-hosted URLs.
    public var endpoint: String?
    /// Certificates to trust instead of the system's (`AWS_CA_BUNDLE`).
    public var caBundle: String?

    /// From the `AWS_*` environment variables; `region` and `endpoint` given win. Empty values count as unset.
    public static func from(environment: [String: String], region: String? = nil, endpoint: String? = nil) throws -> S3Configuration {
        func value(_ names: String...) -> String? {
            names.lazy.compactMap { environment[$0] }.first { !$0.isEmpty }
        }
        guard let key = value("AWS_ACCESS_KEY_ID"), let secret = value("AWS_SECRET_ACCESS_KEY") else {
            throw ObjectStorageError.configuration(
                "no credentials for S3: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (and AWS_SESSION_TOKEN for temporary ones)")
        }
        let configuration = S3Configuration(
            accessKeyID: key, secretAccessKey: secret, sessionToken: value("AWS_SESSION_TOKEN"),
            region: region ?? value("AWS_REGION", "AWS_DEFAULT_REGION") ?? "us-east-1",
            endpoint: endpoint ?? value("AWS_ENDPOINT_URL_S3", "AWS_ENDPOINT_URL"), caBundle: value("AWS_CA_BUNDLE"))
        try configuration.check()
        return configuration
    }

    /// Refuses values that would break a request: a region or key not one token, an endpoint no http(s) URL of a host.
    public func check() throws {
        let token = { (text: String) in !text.isEmpty && text.unicodeScalars.allSatisfy { $0.value > 0x20 && $0.value < 0x7F } }
        guard token(region), !region.contains(":") else { throw ObjectStorageError.configuration("\"\(region)\" is no AWS region") }
        guard token(accessKeyID), !accessKeyID.contains(":") else {
            throw ObjectStorageError.configuration("the access key ID is not one word of printable ASCII")
        }
        guard token(secretAccessKey) else { throw ObjectStorageError.configuration("the secret access key is not one word of printable ASCII") }
        if let sessionToken, !token(sessionToken) {
            throw ObjectStorageError.configuration("the session token is not one word of printable ASCII")
        }
        if let endpoint {
            let lower = endpoint.lowercased()
            let rest = lower.hasPrefix("https://") ? lower.dropFirst(8) : lower.hasPrefix("http://") ? lower.dropFirst(7) : nil
            guard let rest, let host = rest.split(separator: "/", omittingEmptySubsequences: false).first, !host.isEmpty,
                  token(endpoint), !rest.contains("?"), !rest.contains("#") else {
                throw ObjectStorageError.configuration("endpoint \"\(endpoint)\" is no http:// or https:// URL of a host")
            }
        }
    }

    /// The URL of `object` with `query` (already in canonical form: see `S3Request`).
    func url(of object: ObjectLocation, query: String) -> String {
        let path = S3Encoding.path(object.key)
        let base: String
        if let endpoint {
            let trimmed = endpoint.hasSuffix("/") ? String(endpoint.dropLast()) : endpoint
            base = "\(trimmed)/\(object.bucket)/\(path)"
        } else {
            base = "https://\(object.bucket).s3.\(region).amazonaws.com/\(path)"
        }
        return query.isEmpty ? base : "\(base)?\(query)"
    }
}

/// Percent-encoding as SigV4 canonicalizes it: every byte but A-Z a-z 0-9 - _ . ~ as %XX (uppercase), `/` kept in
/// paths. Why canonical: see ObjectStorage.swift.
enum S3Encoding {
    static func path(_ key: String) -> String { encode(key, keeping: "/") }
    static func component(_ text: String) -> String { encode(text, keeping: nil) }

    private static func encode(_ text: String, keeping kept: Character?) -> String {
        let hex = Array("0123456789ABCDEF")
        var out = ""
        for byte in text.utf8 {
            let scalar = Unicode.Scalar(byte)
            let unreserved = (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x30 && byte <= 0x39)
                || "-_.~".unicodeScalars.contains(scalar)
            if unreserved || (kept.map { Character(scalar) == $0 } ?? false) {
                out.unicodeScalars.append(scalar)
            } else {
                out += "%" + String(hex[Int(byte >> 4)]) + String(hex[Int(byte & 0x0F)])
            }
        }
        return out
    }
}
