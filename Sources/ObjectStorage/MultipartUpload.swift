import Basics
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// A file to one S3 object by multipart upload: CreateMultipartUpload, an UploadPart per `partSize` bytes (read one
/// part at a time, never the whole file), CompleteMultipartUpload with the parts' ETags. Each request is retried on its
/// own (`RetryPolicy`); an upload that cannot finish is aborted, and the error says if the abort worked.
public struct MultipartUpload {
    public struct Options: Equatable, Sendable {
        /// Bytes per part (the last is shorter); raised when the file would need more than S3's 10,000 parts.
        public var partSize = 8 << 20
        /// The least `partSize` accepted: S3's 5 MiB for every part but the last. A test server
        /// may allow smaller parts (moto's S3_UPLOAD_PART_MIN_SIZE).
        public var minimumPartSize = 5 << 20
        public var retry = RetryPolicy.upload

        public init() {}
    }

    public struct Report: Equatable, Sendable {
        public var object: ObjectLocation
        public var bytes: Int64
        public var parts: Int
        public var partSize: Int
        /// Requests sent again after a failure, over the whole upload.
        public var retries: Int
        /// The object's ETag, as S3 gave it.
        public var etag: String?
    }

    public static let maxParts = 10_000
    /// S3's largest part: 5 GiB.
    public static let maxPartSize = 5 << 30

    private let configuration: S3Configuration
    private let file: String
    private let object: ObjectLocation
    private let contentType: String
    private let options: Options

    public init(file: String, to object: ObjectLocation, contentType: String, configuration: S3Configuration, options: Options = Options()) {
        self.file = file
        self.object = object
        self.contentType = contentType
        self.configuration = configuration
        self.options = options
    }

    /// Uploads the file; throws `.uploadFailed`, or `.cannotRead` and `.configuration` before anything is sent.
    public func run() throws -> Report {
        guard options.partSize >= options.minimumPartSize else {
            throw ObjectStorageError.configuration("a part size of \(options.partSize) bytes is below the \(options.minimumPartSize) S3 requires")
        }
        // S3's largest part; anything larger (or no size at all) breaks the part count below.
        guard (1...Self.maxPartSize).contains(options.partSize) else {
            throw ObjectStorageError.configuration("a part size of \(options.partSize) bytes is outside 1 byte to 5 GiB (S3's largest part)")
        }
        let source = try SourceFile(path: file)
        let partSize = Self.partSize(for: source.size, asked: options.partSize)
        let parts = max(1, Int((source.size + Int64(partSize) - 1) / Int64(partSize)))
        var requests = UploadRequests(connection: try S3Connection(configuration: configuration), object: object, retry: options.retry)
        let uploadID: String
        do {
            uploadID = try requests.start(contentType: contentType)
        } catch let cause as ObjectStorageError {
            throw ObjectStorageError.uploadFailed(object, cause: cause, aborted: nil, uploadID: nil, abortFailure: nil)
        }
        do {
            var etags: [String] = []
            for part in 1...parts {
                let offset = Int64(part - 1) * Int64(partSize)
                let bytes = try source.read(at: offset, count: Int(min(Int64(partSize), source.size - offset)))
                etags.append(try requests.upload(part: part, of: parts, bytes: bytes, uploadID: uploadID))
            }
            let etag = try requests.complete(uploadID: uploadID, etags: etags)
            return Report(object: object, bytes: source.size, parts: parts, partSize: partSize, retries: requests.retries, etag: etag)
        } catch let cause as ObjectStorageError {
            let abortFailure = requests.abort(uploadID: uploadID)
            throw ObjectStorageError.uploadFailed(
                object, cause: cause, aborted: abortFailure == nil, uploadID: uploadID, abortFailure: abortFailure)
        }
    }

    /// `asked`, or more (whole MiB) when a file of `size` bytes would need more than 10,000 parts of it.
    static func partSize(for size: Int64, asked: Int) -> Int {
        let least = (size + Int64(maxParts) - 1) / Int64(maxParts)
        guard least > Int64(asked) else { return asked }
        let mebibyte = Int64(1 << 20)
        return Int((least + mebibyte - 1) / mebibyte * mebibyte)
    }
}

/// The requests of one upload, each sent through `perform` with its retries.
private struct UploadRequests {
    let connection: S3Connection
    let object: ObjectLocation
    let retry: RetryPolicy
    private(set) var retries = 0

    mutating func start(contentType: String) throws -> String {
        let request = S3Request(method: "POST", object: object, query: "uploads=", contentType: contentType,
                                step: "starting the multipart upload")
        let response = try perform(request, payload: Data())
        guard let id = S3XML.text(of: "UploadId", in: response.body), !id.isEmpty else {
            throw ObjectStorageError.requestFailed(step: request.step, reason: "the answer holds no UploadId", attempts: 1)
        }
        return id
    }

    mutating func upload(part: Int, of parts: Int, bytes: Data, uploadID: String) throws -> String {
        let request = S3Request(method: "PUT", object: object, query: "partNumber=\(part)&uploadId=\(S3Encoding.component(uploadID))",
                                step: "part \(part) of \(parts)")
        let response = try perform(request, payload: bytes)
        guard let etag = response.etag, !etag.isEmpty else {
            throw ObjectStorageError.requestFailed(step: request.step, reason: "the answer holds no ETag", attempts: 1)
        }
        return etag
    }

    mutating func complete(uploadID: String, etags: [String]) throws -> String? {
        let request = S3Request(method: "POST", object: object, query: "uploadId=\(S3Encoding.component(uploadID))",
                                contentType: "application/xml", step: "completing the multipart upload")
        return S3XML.text(of: "ETag", in: try perform(request, payload: S3XML.completion(etags: etags)).body)
    }

    /// Aborts the upload; nil when done, else why not.
    mutating func abort(uploadID: String) -> String? {
        let request = S3Request(method: "DELETE", object: object, query: "uploadId=\(S3Encoding.component(uploadID))",
                                step: "aborting")
        do {
            _ = try perform(request, payload: Data())
            return nil
        } catch {
            return "\(error)"
        }
    }

    /// Sends `request` until it succeeds (2xx without an error in the body: CompleteMultipartUpload
    /// can fail with 200), fails in a way no retry mends, or runs out of attempts.
    private mutating func perform(_ request: S3Request, payload: Data) throws -> S3Response {
        var attempt = 0
        while true {
            attempt += 1
            let reason: String, retryable: Bool
            switch payload.withUnsafeBytes({ connection.send(request, payload: $0) }) {
            case .success(let response):
                let error = S3XML.error(in: response.body)
                if (200..<300).contains(response.status), error == nil { return response }
                reason = "HTTP \(response.status)" + (error.map { " \($0.code): \($0.message)" } ?? "")
                retryable = RetryPolicy.retryable(status: response.status, code: error?.code)
            case .failure(let failure):
                reason = failure.message
                retryable = failure.retryable
            }
            guard retryable, attempt < retry.maxAttempts else {
                throw ObjectStorageError.requestFailed(step: request.step, reason: reason, attempts: attempt)
            }
            retries += 1
            usleep(useconds_t(min(retry.delay(afterAttempt: attempt), 3600) * 1_000_000))
        }
    }
}

/// The file being uploaded (`PosixFile`: Foundation's FileHandle traps on I/O errors).
private struct SourceFile {
    let path: String
    let size: Int64
    private let file: PosixFile

    init(path: String) throws {
        self.path = path
        do {
            file = try PosixFile(path: path, access: .read)
            size = Int64(clamping: try file.seekToEnd())
        } catch {
            throw ObjectStorageError.cannotRead(path, reason: error.description)
        }
    }

    func read(at offset: Int64, count: Int) throws -> Data {
        let data: Data
        do {
            data = try file.read(at: UInt64(offset), count: count)
        } catch {
            throw ObjectStorageError.cannotRead(path, reason: error.description)
        }
        guard data.count == count else {
            throw ObjectStorageError.cannotRead(
                path, reason: "the file ended at byte \(offset + Int64(data.count)), before its \(size) bytes")
        }
        return data
    }
}
