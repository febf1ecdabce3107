import FoundationEssentials
import HTTP

/// One S3 request; `query` is canonical (see `S3Encoding`), `contentType` that of the object it creates.
struct S3Request {
    var method: String
    var object: ObjectLocation
    var query: String
    var contentType = "application/octet-stream"
    /// What the request does, for errors ("part 3 of 5").
    var step: String
}

/// What S3 answered: the status, the ETag header (parts), the body (XML, small).
struct S3Response {
    var status: Int
    var etag: String?
    var body: Data
}

/// One upload's requests over one kept-alive connection (HTTP's `SerialClient`), each signed by libcurl.
final class S3Connection {
    private let client: SerialClient
    private let configuration: S3Configuration
    private static let emptyPayloadHash = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

    init(configuration: S3Configuration) throws {
        self.configuration = configuration
        // Error bodies are a few hundred bytes of XML; more is not S3 talking.
        let options = SerialClient.Options(
            awsSigV4: "aws:amz:\(configuration.region):s3",
            credentials: "\(configuration.accessKeyID):\(configuration.secretAccessKey)",
            caBundle: configuration.caBundle, maxBodyBytes: 1 << 20)
        do {
            client = try SerialClient(options: options)
        } catch {
            throw ObjectStorageError.configuration(error.message)
        }
    }

    /// Sends `request` with `payload` as its body (empty: none); a transport failure is `.failure` with libcurl's words
    /// and whether a retry may help.
    func send(_ request: S3Request, payload: UnsafeRawBufferPointer) -> Result<S3Response, SerialClient.Failure> {
        // The payload hash libcurl signs and S3 checks (see ObjectStorage.swift).
        let hash = payload.isEmpty ? Self.emptyPayloadHash : SHA256.hex(payload)
        // Always a real type: libcurl's default for a body (form-urlencoded) makes servers parse
        // it as a form, and an empty "Content-Type:" to drop it breaks 7.88's signature.
        var headers = ["x-amz-content-sha256: \(hash)", "Content-Type: \(request.contentType)"]
        if let token = configuration.sessionToken { headers.append("x-amz-security-token: \(token)") }
        let url = configuration.url(of: request.object, query: request.query)
        return client.send(request.method, url: url, headers: headers, payload: payload).map {
            S3Response(status: $0.status, etag: $0.etag, body: $0.body)
        }
    }
}
