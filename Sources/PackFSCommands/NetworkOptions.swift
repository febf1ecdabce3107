import ArgumentParser
import Basics
import Downloader
import FoundationEssentials
import HTTP
import PackStore

/// Options of every command that talks HTTP (docs/design.md §4).
struct NetworkOptions: ParsableArguments {
    @Option(help: "Requests in flight at most.")
    var concurrency = 20

    @Option(name: .customLong("access-token"), help: "Mapbox access token for mapbox:// URLs.")
    var accessToken: String?

    @Option(help: ArgumentHelp("Rewrite URL prefix FROM to TO before each request (repeatable).", valueName: "FROM=TO"))
    var rewrite: [String] = []

    @Option(name: .customLong("allow-host"), help: "Only contact this host (repeatable; redirects included).")
    var allowHost: [String] = []

    @Option(name: .customLong("max-tiles"), help: "Tiles in the whole database at most.")
    var maxTiles: Int?

    @Option(name: .customLong("disk-quota"), help: ArgumentHelp(
        "Bytes the database may use at most (suffixes K, M, G); the ambient cache is evicted first, "
            + "then a download that needs more stops in error, keeping what it stored.", valueName: "BYTES"))
    var diskQuotaText: String?

    /// `--disk-quota` in bytes (`validate` has refused text that is none).
    var diskQuota: Int64? { diskQuotaText.flatMap(ByteCount.parse) }

    // 5 s: a live connection on a poor mobile link is rarely silent that long (TCP itself resends
    // a lost segment within about 3 s), and a retried request costs one round trip.
    @Option(name: .customLong("stall-timeout"), help: ArgumentHelp(
        "Seconds a transfer may receive nothing before it is abandoned and retried.", valueName: "SECONDS"))
    var stallTimeout = 5.0

    // Settable so a retry test (or a flaky link) need not wait out the default backoff, about 19 s.
    @Option(help: ArgumentHelp("Attempts in all for a request that fails in a way worth retrying.", valueName: "N"))
    var retries = RetryPolicy().maxAttempts

    @Option(name: .customLong("retry-delay"), help: ArgumentHelp(
        "Seconds before the first retry; each later one waits twice as long (with jitter).", valueName: "SECONDS"))
    var retryDelay = RetryPolicy().baseDelay

    func validate() throws {
        guard (1...512).contains(concurrency) else { throw ValidationError("--concurrency must be 1 to 512") }
        if let maxTiles, maxTiles < 0 { throw ValidationError("--max-tiles must not be negative") }
        if let diskQuotaText, ByteCount.parse(diskQuotaText) == nil {
            throw ValidationError("--disk-quota: \"\(diskQuotaText)\" is not a byte count (e.g. 1073741824, 1G)")
        }
        guard stallTimeout >= 0.1, stallTimeout <= 3600 else {
            throw ValidationError("--stall-timeout must be 0.1 to 3600 seconds")
        }
        var policy = RetryPolicy()
        try policy.set(retries: retries, retryDelay: retryDelay)
        for rule in rewrite {
            do { _ = try URLRewrite(argument: rule) } catch { throw ValidationError("--rewrite \(rule): \(error)") }
        }
    }

    var downloadOptions: DownloadOptions {
        var options = DownloadOptions()
        options.http.concurrency = concurrency
        options.http.stallTimeout = stallTimeout
        try? options.http.retry.set(retries: retries, retryDelay: retryDelay)  // `validate` refused what fails
        options.maxTiles = maxTiles
        options.diskQuota = diskQuota
        options.urlPolicy = URLPolicy(
            accessToken: accessToken ?? SecretArguments.inheritedAccessToken, rewrites: rewrite.compactMap { try? URLRewrite(argument: $0) },
            allowedHosts: allowHost)
        return options
    }
}

extension RetryPolicy {
    /// `--retries` and `--retry-delay`, when given, checked as every command that retries checks them.
    mutating func set(retries: Int?, retryDelay: Double?) throws {
        if let retries {
            guard (1...100).contains(retries) else { throw ValidationError("--retries must be 1 to 100") }
            maxAttempts = retries
        }
        if let retryDelay {
            guard retryDelay >= 0.001, retryDelay <= maxDelay else {
                throw ValidationError("--retry-delay must be 0.001 to \(cFormat("%g", maxDelay)) seconds")
            }
            baseDelay = retryDelay
        }
    }
}

/// Reads and validates a region file; errors name the file and the field.
func readRegionFile(_ path: String) throws -> RegionFile {
    let data = try readInputFile(path)
    do {
        return try RegionFile.parse(data)
    } catch let error as StoreError {
        throw CommandFailure("\(path): \(error.description)")
    }
}

/// A file's bytes (a region file, a preload's FILE); any failure is one line naming it, never a trap.
func readInputFile(_ path: String) throws -> Data {
    var isDirectory = false
    guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
        throw CommandFailure("\(path): no such file")
    }
    guard !isDirectory else { throw CommandFailure("\(path): is a directory") }
    do {
        return try Data(contentsOf: URL(fileURLWithPath: path))
    } catch {
        throw CommandFailure("\(path): cannot be read (\(errorText(error)))")
    }
}
