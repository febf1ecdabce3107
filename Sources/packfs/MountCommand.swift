import ArgumentParser
import FUSEBridge
import Foundation
import PackLifecycle
import PackStore

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
    @Option(help: "FUSE worker threads at most.") var threads = 8
    @Option(help: ArgumentHelp("Append the daemon's messages to FILE (in the background; with -f they go to stderr).",
                               valueName: "FILE"))
    var log: String?
    @OptionGroup var network: NetworkOptions

    func validate() throws {
        guard (1...256).contains(threads) else { throw ValidationError("--threads must be 1 to 256") }
    }

    func run() throws {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: mountpoint, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw CommandFailure("\(mountpoint): not a directory")
        }
        let mountpoint = URL(fileURLWithPath: mountpoint).standardizedFileURL.path
        if !foreground { return try Background.start(CommandLine.arguments, mountpoint: mountpoint, log: log) }
        let database = try db.openForSession()
        defer { try? database.close() }
        let parts = MountParts(
            database: database, mountpoint: mountpoint, tileLimit: network.maxTiles, downloads: network.downloadOptions,
            fuse: FUSEMount.Options(
                mountOptions: ["fsname=packfs", "subtype=packfs"] + options, maxThreads: threads,
                caching: KernelCaching(statelessOpen: true)))
        parts.manager.resumeActivePacks()
        defer { parts.manager.stop() }
        do {
            try parts.mount.run()
        } catch {
            throw CommandFailure("mounting \(mountpoint) failed: \(error)")
        }
    }
}

/// Daemon mode without fork (a forked Swift process keeps one thread and a broken Dispatch):
/// the command runs itself again with `-f` in a new session, waits until the mount is up, and
/// exits 0; if the child fails first, its one-line error becomes ours.
enum Background {
    static func start(_ arguments: [String], mountpoint: String, log path: String?) throws {
        let child = Process()
        child.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        child.arguments = Array(arguments.dropFirst()) + ["-f"]
        // Without --log the child's stderr is an unlinked temporary file once we leave: a pipe
        // with no reader would fail its later log lines.
        let log = path.map { URL(fileURLWithPath: $0) }
            ?? FileManager.default.temporaryDirectory.appendingPathComponent("packfs-mount-\(UUID().uuidString).log")
        if path == nil || !FileManager.default.fileExists(atPath: log.path) {
            guard FileManager.default.createFile(atPath: log.path, contents: nil) else {
                throw CommandFailure("\(log.path): cannot create the mount's log")
            }
        }
        defer { if path == nil { try? FileManager.default.removeItem(at: log) } }
        let output = try FileHandle(forWritingTo: log)
        let start = try output.seekToEnd()
        child.standardInput = FileHandle.nullDevice
        child.standardOutput = FileHandle.nullDevice
        child.standardError = output
        try child.run()
        let deadline = Date().addingTimeInterval(15)
        while Date() < deadline {
            if isMounted(mountpoint) { return }
            if !child.isRunning {
                let text = String(decoding: (try? Data(contentsOf: log))?.dropFirst(Int(clamping: start)) ?? Data(), as: UTF8.self)
                throw CommandFailure(text.replacingOccurrences(of: "packfs: ", with: "").trimmingCharacters(in: .whitespacesAndNewlines))
            }
            usleep(20_000)
        }
        child.terminate()
        throw CommandFailure("\(mountpoint): the mount did not come up within 15 s")
    }

    /// A FUSE mount of PackFS at `path`, per /proc/self/mountinfo.
    static func isMounted(_ path: String) -> Bool {
        guard let table = try? String(contentsOfFile: "/proc/self/mountinfo", encoding: .utf8) else { return false }
        return table.split(separator: "\n").contains { line in
            let fields = line.split(separator: " ")
            return fields.count > 4 && fields[4] == path && line.contains(" - fuse.packfs ")
        }
    }
}
