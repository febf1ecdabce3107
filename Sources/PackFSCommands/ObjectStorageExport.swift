import Basics
import FoundationEssentials
import Interchange
import ObjectStorage
import PackStore

#if canImport(Glibc)
    import Glibc
#endif

/// An export to object storage: staged as files first (an upload needs the whole size before it starts),
/// then each uploaded as for a local OUT (`key.<source>.pmtiles` per source). Staging is always removed.
struct ObjectStorageExport {
    var object: ObjectLocation
    var configuration: S3Configuration
    var options: MultipartUpload.Options
    /// Where the staging directory is made (--staging, else TMPDIR).
    var stagingParent: String

    static func contentType(of object: ObjectLocation) -> String? {
        let name = object.name.lowercased()
        if name.hasSuffix(".pmtiles") { return "application/vnd.pmtiles" }
        if name.hasSuffix(".mbtiles") { return "application/vnd.sqlite3" }
        return nil
    }

    /// Runs `export` into the staging directory, then uploads what it wrote.
    func run(_ export: (String) throws -> any InterchangeSummary) throws -> ObjectStorageExportSummary {
        let staging = try makeStagingDirectory()
        defer { try? FileManager.default.removeItem(atPath: staging) }
        let summary = try export(staging + "/" + object.name)
        let files = try FileManager.default.contentsOfDirectory(atPath: staging).filter { !$0.hasPrefix(".") }.sorted()
        var reports: [MultipartUpload.Report] = []
        for file in files {
            let target = object.sibling(named: file)
            let upload = MultipartUpload(
                file: staging + "/" + file, to: target, contentType: Self.contentType(of: target) ?? "application/octet-stream",
                configuration: configuration, options: options)
            do {
                reports.append(try upload.run())
            } catch let error as ObjectStorageError {
                let before = reports.isEmpty ? "" : " (uploaded before it: \(reports.map(\.object.description).joined(separator: ", ")))"
                throw CommandFailure("\(error)\(before)")
            }
        }
        return ObjectStorageExportSummary(export: summary, staging: staging + "/", prefix: object.sibling(named: "").description, uploads: reports)
    }

    private func makeStagingDirectory() throws -> String {
        // mkdtemp(3)'s template: it replaces the six X's with a unique name.
        var template = Array("\(stagingParent)/packfs-export-XXXXXX".utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ buffer in buffer.baseAddress.flatMap { mkdtemp($0) } }) else {
            throw CommandFailure("cannot make a staging directory in \(stagingParent): \(String(cString: strerror(errno)))")
        }
        return String(cString: made)
    }
}

/// The export's summary with staged paths shown as their objects, and a line per upload.
struct ObjectStorageExportSummary: InterchangeSummary {
    var export: any InterchangeSummary
    /// The staging directory's path with a trailing `/`, and the `s3://bucket/prefix/` it stands for.
    var staging: String
    var prefix: String
    var uploads: [MultipartUpload.Report]

    var lines: [String] {
        export.lines.map { $0.replacing(staging, with: prefix) } + uploads.map { report in
            let retries = report.retries > 0 ? ", \(plural(report.retries, "request")) retried" : ""
            return "uploaded \(report.object): \(humanBytes(report.bytes)) in \(plural(report.parts, "part")) of up to "
                + "\(humanBytes(Int64(report.partSize)))\(retries)"
        }
    }

    var json: JSONValue {
        var object = relabel(export.json).object ?? [:]
        object["uploads"] = .array(uploads.map { report in
            .object([
                "url": .string(report.object.description), "bytes": .number(Double(report.bytes)),
                "parts": .number(Double(report.parts)), "part_size": .number(Double(report.partSize)),
                "retries": .number(Double(report.retries)), "etag": report.etag.map(JSONValue.string) ?? .null,
            ])
        })
        return .object(object)
    }

    private func relabel(_ value: JSONValue) -> JSONValue {
        switch value {
        case .string(let text): return .string(text.replacing(staging, with: prefix))
        case .array(let items): return .array(items.map(relabel))
        case .object(let fields): return .object(fields.mapValues(relabel))
        default: return value
        }
    }
}
