import ArgumentParser
import Basics
import CGlibc
import FoundationEssentials
import PackStore

#if canImport(Glibc)
    import Glibc
#endif

/// The root command: a table of subcommands and the one place that turns errors into a line on
/// stderr and an exit status (0 success, 1 failure, 2 bad usage).
@main
struct PackFSCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "packfs",
        abstract: "Offline map packs (MapLibre Native's offline database) as a filesystem.",
        version: PackFSCommand.version,
        subcommands: [
            ListCommand.self, StatusCommand.self, RemoveCommand.self, CacheCommand.self,
            ResetCommand.self, MountCommand.self, DownloadCommand.self, RefreshCommand.self, EstimateCommand.self,
            ExportCommand.self, ImportCommand.self, VerifyCommand.self, PatchCommand.self, DiffCommand.self,
        ])

    /// The release, as `packfs --version` prints it and the Debian package is named.
    static let version = "0.9.0"

    static func main() {
        limitMallocArenas()
        SecretArguments.hideAll(arguments: CommandLine.arguments, environment: ProcessInfo.processInfo.environment)
        do {
            var command = try parseAsRoot()
            try command.run()
        } catch {
            exit(withReport: error)
        }
    }

    /// glibc gives each contending thread an arena that keeps its freed pages: two serve a mount. A fixed
    /// mmap threshold keeps FUSE's 1 MB request buffers out of them, but also fixes trimming at 128 KiB
    /// (brk on every page of an export), so the top keeps up to 4 MiB free: at 1 MiB, the content cache's
    /// turnover trimmed a ring thread's arena again and again in some runs, and every inflate wrote to
    /// fresh pages (docs/benchmarks.md, "Designs measured and set aside").
    private static func limitMallocArenas() {
        _ = packfs_mallopt(packfs_malloc_arena_max(), 2)
        _ = packfs_mallopt(packfs_malloc_mmap_threshold(), Int32(WholeInflate.mmapThreshold))
        _ = packfs_mallopt(packfs_malloc_trim_threshold(), 4 << 20)
    }

    /// Help and version requests exit 0; usage errors 2; every other error 1, as one line.
    private static func exit(withReport error: Error) -> Never {
        if let failure = error as? CommandFailure { fail(failure.message) }
        if let failure = error as? StoreError { fail(failure.description) }
        let code = exitCode(for: error)
        if code == .success {
            print(fullMessage(for: error))
            Glibc.exit(0)
        }
        if code.rawValue == ExitCode.validationFailure.rawValue {
            let line = message(for: error).replacing("\n", with: " ")
            StandardError.write("packfs: \(line) (see 'packfs help')\n")
            Glibc.exit(2)
        }
        fail(String(describing: error))
    }

    static func fail(_ message: String) -> Never {
        let line = message.replacing("\n", with: " ")
        StandardError.write("packfs: \(line)\n")
        Glibc.exit(1)
    }
}

/// A failure a command reports in its own words (exit status 1).
struct CommandFailure: Error {
    var message: String
    init(_ message: String) { self.message = message }
}
