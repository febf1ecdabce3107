import FoundationEssentials
import HTTP
import PackStore

/// One file fetched whole to disk (`packfs patch DB NAME https://.../diff.mbtiles`), in ranges of
/// `chunk` bytes, so a patch of gigabytes costs `chunk` bytes of memory. Later ranges send the first
/// answer's ETag as If-Match: a file replaced mid-way fails (412) rather than splice two versions.
/// It ends at a short range or a 416; a server that ignores ranges sends it whole (a 200).
public enum RemoteFile {
    public static let chunk: UInt64 = 16 << 20

    /// Fetches `url` (http or https, through the options' URL policy) into `write`, which gets
    /// the bytes in order; returns the byte count. Throws the request's failure, naming the URL.
    @discardableResult
    public static func fetch(_ url: String, options: DownloadOptions, chunk: UInt64 = chunk,
                             into write: (Data) throws -> Void) throws -> UInt64 {
        let fetcher = try DocumentFetcher(options: options, trusting: url)
        defer { fetcher.shutdown() }
        var offset: UInt64 = 0
        var etag: String?
        while true {
            let response: HTTPResponse
            do {
                response = try fetcher.answer(url, range: ByteRange(offset: offset, length: chunk, ifMatch: etag))
            } catch HTTPError.status(416, _) where offset > 0 {
                return offset
            }
            guard response.status == 206 || offset == 0 else {
                throw DownloadError.archive(url: url, reason: "the server answered a range with the whole file (HTTP \(response.status)) after answering ranges")
            }
            try write(response.content)
            offset += UInt64(response.content.count)
            // A 200 is the whole file; a short 206 its last part.
            guard response.status == 206, UInt64(response.content.count) >= chunk else { return offset }
            if etag == nil { etag = response.headers.etag }
        }
    }
}
