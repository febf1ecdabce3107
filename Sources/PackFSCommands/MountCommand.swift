import ArgumentParser
import Basics
import CGlibc
import FUSEBridge
import FoundationEssentials
import PackFS
import PackLifecycle
import PackStore

#if canImport(Glibc)
    import Glibc
#endif

struct MountCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mount",
        abstract: "Mount an offline database: every pack a directory of tiles, style.json, glyphs, sprites.",
        discussion: """
            Runs in the background once the mount is up, unless -f. Unmount with \
            `fusermount3 -u MOUNTPOINT` (or SIGINT/SIGTERM to the foreground process); the \
            database is then a single self-contained file again.
            """)

    @OptionGroup var db: DatabaseOptions
    @Argument(help: "An existing empty directory.") var mountpoint: String
    @Flag(name: .customShort("f"), help: "Stay in the foreground.") var foreground = false
    @Option(name: .customShort("o"), help: "FUSE mount options, comma-separated (allow_other, ...).")
    var options: [String] = []
    @Option(help: "FUSE worker threads at most; unset, 2 per core (2 to 16).") var threads = Self.defaultThreads
    @Option(help: ArgumentHelp("Append the daemon's messages to FILE (in the background; with -f they go to stderr).",
                               valueName: "FILE"))
    var log: String?
    @Option(name: .customLong("web-base"), help: ArgumentHelp(
        "Where a web server publishes MOUNTPOINT (http(s)://host/path): each pack also shows web-style.json, its style with every URL absolute under it, and the root a web page of every pack (index.html, packs.json).",
        valueName: "URL"))
    var webBase: String?
    @Option(name: .customLong("web-assets"), help: ArgumentHelp(
        "With --web-base: the directory holding the web page the root shows (index.html, its script and stylesheet, MapLibre GL JS) instead of \(WebPage.installed).",
        valueName: "DIR"))
    var webAssets: String?
    @OptionGroup var dbMode: DatabaseModeOptions
    @OptionGroup var network: NetworkOptions

    /// Two workers per core: each request wakes a sleeping worker, and more workers than the cores keep
    /// busy only add wake-ups (docs/benchmarks.md, "Designs measured and set aside").
    static let defaultThreads = min(16, max(2, 2 * ProcessInfo.processInfo.activeProcessorCount))

    func validate() throws {
        _ = try Self.ioURing(options)
        _ = try Self.readAhead(options)
        _ = try fileMode()
        guard (1...256).contains(threads) else { throw ValidationError("--threads must be 1 to 256") }
        if let webBase {
            guard let url = URLComponents(string: webBase), ["http", "https"].contains(url.scheme?.lowercased() ?? ""),
                url.host?.isEmpty == false, url.query == nil, url.fragment == nil
            else { throw ValidationError("--web-base \"\(webBase)\" is not an http(s) URL without a query (e.g. https://maps.example/packfs)") }
        }
        if webAssets != nil, webBase == nil { throw ValidationError("--web-assets needs --web-base") }
    }

    func run() throws {
        let mountpoint = try MountPoint.prepare(self.mountpoint)
        // Before the daemon starts, so that what is wrong with the page reaches the terminal.
        let webPage = try loadWebPage()
        if !foreground {
            return try Background.start(
                CommandLine.arguments, database: db.database, mountpoint: self.mountpoint, at: mountpoint, log: log)
        }
        let readOnly = Self.words(options).contains("ro")
        let database = try readOnly ? db.openForReading() : db.openForSession(fileMode: try fileMode())
        defer { report(closing: database) }
        try database.openReaders(threads)
        let parts = MountParts(
            database: database, mountpoint: mountpoint, tileLimit: network.maxTiles, downloads: network.downloadOptions,
            readOnly: readOnly, webBase: webBase, webPage: webPage, readAhead: try Self.readAhead(options),
            fuse: FUSEMount.Options(
                mountOptions: ["fsname=packfs", "subtype=packfs"] + Self.words(options).filter { !Self.isOwnOption($0) },
                maxThreads: threads, caching: KernelCaching(statelessOpen: true), ioURing: try Self.ioURing(options)))
        if !readOnly {
            // A full disk must not stop a mount: the switches then replace bytes in place.
            do { try database.beginSwitchedRows() } catch { StandardError.write("packfs: \(error)\n") }
            SpoolFile.removeLeftovers(besideDatabase: database.path)
            parts.manager.resumeActivePacks()
            database.startCounting { StandardError.write("packfs: \($0)\n") }
            database.resumeRemovals()
        }
        defer {
            parts.manager.stop()
            parts.filesystem.stopReadingAhead()
        }
        do {
            try parts.mount.run(mounted: Background.tellParent)
        } catch {
            throw CommandFailure("mounting \(self.mountpoint) failed: \(error)")
        }
    }

    /// The root's page with `--web-base`: missing from `--web-assets`, it fails the mount; missing from
    /// the installed assets, the mount goes on without it (the web styles still serve) and says so.
    private func loadWebPage() throws -> WebPage? {
        guard webBase != nil else { return nil }
        do {
            return try WebPage.load(from: webAssets ?? WebPage.installed)
        } catch {
            if webAssets != nil { throw CommandFailure("--web-assets: \(error)") }
            StandardError.write("packfs: no web page at the root: \(error) (scripts/setup.sh or the package installs it; --web-assets DIR names another)\n")
            return nil
        }
    }

    /// An unclean close (a full disk keeps the log) is logged: an unmount has nobody else to tell.
    private func report(closing database: OfflineDatabase) {
        // Best effort: a file deleted or full keeps the table, which the next mount empties.
        if database.mode != .readOnly { try? database.endSwitchedRows() }
        do {
            try database.close()
        } catch {
            StandardError.write("packfs: \(error)\n")
        }
    }

    /// `-o io_uring=auto|on|off`, the last one given; `auto` (io_uring where the kernel offers it) by default.
    static func ioURing(_ options: [String]) throws -> FUSEMount.IOURing {
        guard let word = words(options).last(where: { $0.hasPrefix("io_uring=") }) else { return .auto }
        let value = String(word.dropFirst("io_uring=".count))
        guard let mode = FUSEMount.IOURing(rawValue: value) else {
            throw ValidationError("-o io_uring=\(value): say auto, on or off")
        }
        return mode
    }

    /// `-o read_ahead=auto|on|off`, the last one given; `off` by default: on this project's 2-core
    /// machine it cost a serial reader 35% more CPU for no faster reads (docs/benchmarks.md).
    static func readAhead(_ options: [String]) throws -> ReadAheadMode {
        guard let word = words(options).last(where: { $0.hasPrefix("read_ahead=") }) else { return .off }
        let value = String(word.dropFirst("read_ahead=".count))
        guard let mode = ReadAheadMode(rawValue: value) else {
            throw ValidationError("-o read_ahead=\(value): say auto, on or off")
        }
        return mode
    }

    /// A new database's mode: the last `-o db_mode=MODE`, else `--db-mode`, else 0600.
    func fileMode() throws -> UInt32 {
        guard let word = Self.words(options).last(where: { $0.hasPrefix("db_mode=") }) else { return try dbMode.fileMode() }
        return try DatabaseModeOptions.parse(String(word.dropFirst("db_mode=".count)), spelled: "-o \(word)")
    }

    /// PackFS's own `-o` options, which libfuse never sees.
    static func isOwnOption(_ word: String) -> Bool {
        ["io_uring=", "db_mode=", "read_ahead="].contains { word.hasPrefix($0) }
    }

    /// `-o` options one by one (each may hold several, comma-separated).
    static func words(_ options: [String]) -> [String] {
        options.flatMap { $0.split(separator: ",").map(String.init) }
    }
}

/// Daemon mode without fork (a forked Swift process keeps one thread and a broken Dispatch): the
/// command reruns itself with `-f` and absolute paths (`umount.packfs` finds it by its mountpoint) and
/// waits for the child's "mounted" line or its one-line error. Tried: watching mountinfo, which took
/// another daemon's mount for ours and missed paths holding a space.
enum Background {
    static let readyVariable = "PACKFS_MOUNT_READY"
    static let readyLine = "mounted\n"

    static func start(_ arguments: [String], database: String, mountpoint: String, at absolute: String,
                      log path: String?) throws {
        let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path
        let secrets = SecretArguments.moved(Array(arguments.dropFirst()))
        let childArguments = absolutePaths(secrets.arguments, database: database, mountpoint: mountpoint,
                                           absolute: absolute) + ["-f"]
        let environment = ProcessInfo.processInfo.environment.merging(secrets.environment.merging([readyVariable: "1"]) { $1 }) { $1 }
        let log = try LogFile(path)
        defer { log.removeIfTemporary() }
        var ends: [Int32] = [-1, -1]
        guard packfs_pipe_cloexec(&ends) == 0 else { throw CommandFailure("\(mountpoint): no pipe to the daemon: \(SystemError(code: errno))") }
        let ready = PosixFile(borrowing: ends[0])
        defer { close(ends[0]) }
        let child: ChildProcess
        do {
            defer { close(ends[1]) }
            child = try ChildProcess.start(executable, childArguments, environment: environment,
                                           output: ends[1], error: log.handle.descriptor)
        } catch {
            throw CommandFailure("\(mountpoint): cannot start the daemon: \(error)")
        }
        // The first line, or end of file when the child exits (or closes its stdout) first.
        let said = String(decoding: (try? ready.read(upTo: readyLine.utf8.count)) ?? Data(), as: UTF8.self)
        if said == readyLine { return }
        _ = child.wait()
        let text = log.written().replacing("packfs: ", with: "")
        throw CommandFailure(text.isEmpty ? "\(mountpoint): the mount ended before it was up" : text)
    }

    /// In the child, once mounted: says so to the waiting parent, then points stdout at
    /// /dev/null (the parent stops reading; a later write must not fail).
    static func tellParent() {
        guard ProcessInfo.processInfo.environment[readyVariable] == "1" else { return }
        _ = readyLine.withCString { write(STDOUT_FILENO, $0, strlen($0)) }
        let null = open("/dev/null", O_WRONLY)
        if null >= 0 {
            dup2(null, STDOUT_FILENO)
            close(null)
        }
    }

    /// The arguments with the database and mountpoint made absolute: the child is found by them.
    static func absolutePaths(_ arguments: [String], database: String, mountpoint: String, absolute: String) -> [String] {
        var result = arguments
        if let index = result.dropFirst().firstIndex(of: database) {
            result[index] = URL(fileURLWithPath: database).standardizedFileURL.path
        }
        if let index = result.dropFirst().lastIndex(of: mountpoint) { result[index] = absolute }
        return result
    }
}

/// Where the background daemon's stderr goes: `--log FILE` (appended), or a temporary file
/// removed once the parent leaves (a pipe with no reader would fail the daemon's later lines).
struct LogFile {
    let url: URL
    let handle: PosixFile
    let start: UInt64
    let temporary: Bool

    init(_ path: String?) throws {
        temporary = path == nil
        url = path.map { URL(fileURLWithPath: $0) }
            ?? FileManager.default.temporaryDirectory.appendingPathComponent("packfs-mount-\(UUID().uuidString).log")
        if temporary || !FileManager.default.fileExists(atPath: url.path) {
            guard FileManager.default.createFile(atPath: url.path, contents: nil) else {
                throw CommandFailure("\(url.path): cannot create the mount's log")
            }
        }
        do {
            handle = try PosixFile(path: url.path, access: .write)
            start = try handle.seekToEnd()
        } catch {
            throw CommandFailure("\(url.path): cannot write the mount's log: \(error)")
        }
    }

    /// What the child wrote since `start`, trimmed.
    func written() -> String {
        let data = (try? Data(contentsOf: url))?.dropFirst(Int(clamping: start)) ?? Data()
        return String(decoding: data, as: UTF8.self).trimmed
    }

    func removeIfTemporary() { if temporary { try? FileManager.default.removeItem(at: url) } }
}
