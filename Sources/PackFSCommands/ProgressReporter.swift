import Basics
import Downloader
import FoundationEssentials
import PackStore
import Dispatch

#if canImport(Glibc)
    import Glibc
#endif

/// Shows a download's progress: a bar redrawn in place on a terminal, a plain line at most once
/// a second otherwise. SIGINT and SIGTERM suspend the download (it resumes on the next run).
enum ProgressReporter {
    static func run(_ download: PackDownload, name: String) -> PackStatus {
        let terminal = isatty(STDERR_FILENO) == 1
        let last = LastLine()
        download.onProgress = { progress in last.show(progress, name: name, terminal: terminal) }
        let signals = [SIGINT, SIGTERM].map { number -> DispatchSourceSignal in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number)
            source.setEventHandler { download.suspend() }
            source.resume()
            return source
        }
        let status = download.run()
        signals.forEach { $0.cancel() }
        if terminal { StandardError.write("\n") }
        return status
    }

    final class LastLine: Sendable {
        /// When the last line was shown; held while writing, so lines never interleave.
        private let shown = LockedState(Date.distantPast)

        func show(_ progress: PackProgress, name: String, terminal: Bool) {
            shown.withLock { shown in
                let now = Date()
                let final = progress.status.state != .active
                guard terminal || final || now.timeIntervalSince(shown) >= 1 else { return }
                shown = now
                let line = describe(progress, name: name, width: terminal ? 30 : 0)
                StandardError.write((terminal ? "\r\u{1B}[K" + line : line + "\n"))
            }
        }

        private func describe(_ progress: PackProgress, name: String, width: Int) -> String {
            let done = progress.completedResources
            let total = max(progress.requiredResources, 1)
            // 100% is for a complete pack only: one that failed (or stopped) with every count
            // reached shows 99.9%, and its state says why.
            let whole = progress.status.state == .complete
            let fraction = whole ? 1 : min(0.999, Double(done) / Double(total))
            let bar = width > 0 ? progressBar(fraction, width: width) + " " : ""
            return "\(name): \(bar)\(cFormat("%5.1f", fraction * 100))% \(done)/\(progress.requiredResources) resources,"
                + " \(progress.counts.tiles)/\(progress.requiredTiles) tiles, \(humanBytes(progress.completedBytes))"
                + (progress.counted ? "" : " (still being counted)")
                + ([.error, .inactive].contains(progress.status.state) ? " (\(progress.status.state.rawValue))" : "")
        }
    }
}

/// `fraction` (0 to 1) as a bar of `width` cells, "[###       ]": the download's and verify's.
func progressBar(_ fraction: Double, width: Int) -> String {
    let filled = max(0, min(width, Int(fraction * Double(width))))
    return "[" + String(repeating: "#", count: filled) + String(repeating: " ", count: width - filled) + "]"
}
