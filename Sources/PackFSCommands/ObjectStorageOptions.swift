import ArgumentParser
import Basics
import FoundationEssentials
import PackStore
import ObjectStorage

/// `packfs export`'s options for an `s3://` OUT. Credentials come from the environment only: a command
/// line is readable by every user in /proc.
struct ObjectStorageOptions: ParsableArguments {
    @Option(help: ArgumentHelp(
        "s3:// OUT: an S3-compatible server (path-style URLs under it); default AWS_ENDPOINT_URL, else AWS.",
        valueName: "URL"))
    var endpoint: String?

    @Option(help: ArgumentHelp("s3:// OUT: the bucket's region; default AWS_REGION, else us-east-1.", valueName: "REGION"))
    var region: String?

    @Option(name: .customLong("part-size"), help: ArgumentHelp(
        "s3:// OUT: bytes per part of the multipart upload (suffixes K, M, G; default 8M, at least 5M).", valueName: "BYTES"))
    var partSizeText: String?

    // S3 refuses parts under 5 MiB but the last; a test server may take smaller ones (moto's
    // S3_UPLOAD_PART_MIN_SIZE), which keeps the upload tests' packs small.
    @Option(name: .customLong("minimum-part-size"), help: .hidden)
    var minimumPartSizeText: String?

    @Option(help: ArgumentHelp(
        "s3:// OUT: attempts in all for each request of the upload (each part on its own); default 5.", valueName: "N"))
    var retries: Int?

    @Option(name: .customLong("retry-delay"), help: ArgumentHelp(
        "s3:// OUT: seconds before a request's first retry, doubled for each later one; default 0.5.", valueName: "SECONDS"))
    var retryDelay: Double?

    @Option(help: ArgumentHelp(
        "s3:// OUT: where to stage the export before its upload (default TMPDIR); what it writes there is removed.",
        valueName: "DIR"))
    var staging: String?

    /// The upload an `s3://` OUT asks for; nil for a local OUT (which takes none of these options).
    /// Every mistake is a usage error, found before anything is exported.
    func upload(for out: String, environment: [String: String]) throws -> ObjectStorageExport? {
        guard out.lowercased().hasPrefix("s3://") else {
            let given = [("--endpoint", endpoint != nil), ("--region", region != nil), ("--part-size", partSizeText != nil),
                         ("--retries", retries != nil), ("--retry-delay", retryDelay != nil), ("--staging", staging != nil)]
            if let (name, _) = given.first(where: \.1) { throw ValidationError("\(name) applies to an s3:// OUT only") }
            return nil
        }
        do {
            let object = try ObjectLocation(url: out)
            guard ObjectStorageExport.contentType(of: object) != nil else {
                throw ValidationError("\(out): an s3:// OUT names a .pmtiles or .mbtiles object")
            }
            let configuration = try S3Configuration.from(environment: environment, region: region, endpoint: endpoint)
            return ObjectStorageExport(
                object: object, configuration: configuration, options: try uploadOptions(),
                stagingParent: try stagingParent(environment))
        } catch let error as ObjectStorageError {
            throw ValidationError(error.description)
        }
    }

    private func uploadOptions() throws -> MultipartUpload.Options {
        var options = MultipartUpload.Options()
        let limit = Int64(MultipartUpload.maxPartSize)
        if let minimumPartSizeText {
            // Capped like --part-size: it raises the part size, which the upload refuses past 5G.
            guard let bytes = ByteCount.parse(minimumPartSizeText), bytes >= 1, bytes <= limit else {
                throw ValidationError("--minimum-part-size: \"\(minimumPartSizeText)\" is not a byte count from 1 to 5G")
            }
            options.minimumPartSize = Int(bytes)
        }
        if let partSizeText {
            guard let bytes = ByteCount.parse(partSizeText), bytes >= options.minimumPartSize, bytes <= limit else {
                throw ValidationError("--part-size: \"\(partSizeText)\" is not a byte count from \(options.minimumPartSize) to 5G (S3's 5M to 5G)")
            }
            options.partSize = Int(bytes)
        }
        options.partSize = max(options.partSize, options.minimumPartSize)
        try options.retry.set(retries: retries, retryDelay: retryDelay)
        return options
    }

    private func stagingParent(_ environment: [String: String]) throws -> String {
        let parent = staging ?? environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        var isDirectory = false
        guard FileManager.default.fileExists(atPath: parent, isDirectory: &isDirectory), isDirectory else {
            throw ValidationError("--staging: \(parent) is no directory")
        }
        return parent
    }
}
