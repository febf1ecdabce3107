import Basics
import FoundationEssentials
import PackLifecycle
import PackStore

/// `packfs verify`'s report as text lines or JSON, and its progress bar.
enum VerifyReportText {
    static func lines(_ report: PackVerification.Report) -> [String] {
        var lines = report.sources.map { source in
            let recorded = source.recorded.map { recorded in
                if let rule = source.recordedRule { return "recorded \(recorded) under export rule \(rule)" }
                return recorded == source.hash ? "as recorded" : "recorded \(recorded)"
            } ?? (report.hashPending ? "its hash is being computed" : "none recorded")
            return "source \(source.id): \(source.tiles) tiles, agg_tiles_hash \(source.hash) (\(recorded))"
        }
        lines.append("resources: \(report.resources)")
        lines.append("plan: " + (report.plannedTiles.map { "\($0) tiles" } ?? "not made (its documents are not stored)"))
        lines.append(report.isSound ? "pack \"\(report.pack)\": sound" : "pack \"\(report.pack)\": \(report.problemCount) problems")
        return lines
    }

    static func json(_ report: PackVerification.Report) -> JSONValue {
        .object([
            "pack": .string(report.pack),
            "sources": .array(report.sources.map { source in
                .object([
                    "id": .string(source.id), "url_template": .string(source.urlTemplate),
                    "tiles": .number(Double(source.tiles)), "agg_tiles_hash": .string(source.hash),
                    "recorded_hash": source.recorded.map(JSONValue.string) ?? .null,
                ])
            }),
            "resources": .number(Double(report.resources)),
            "planned_tiles": report.plannedTiles.map { .number(Double($0)) } ?? .null,
            "hash_pending": .bool(report.hashPending),
            "problems": .array(report.problems.map(JSONValue.string)),
            "problem_count": .number(Double(report.problemCount)),
            "sound": .bool(report.isSound),
        ])
    }
}

/// A bar redrawn in place on a terminal (at most 10 times a second); nothing otherwise.
final class VerifyProgress: Sendable {
    private let name: String
    private let terminal: Bool
    private let shown = LockedState(Date.distantPast)

    init(name: String, terminal: Bool) {
        self.name = name
        self.terminal = terminal
    }

    func show(_ done: Int, _ total: Int) {
        guard terminal else { return }
        shown.withLock { shown in
            let now = Date()
            guard now.timeIntervalSince(shown) >= 0.1 else { return }
            shown = now
            let fraction = total > 0 ? min(1, Double(done) / Double(total)) : 0
            let bar = progressBar(fraction, width: 30)
            StandardError.write("\r\u{1B}[K\(name): \(bar) \(cFormat("%5.1f", fraction * 100))% \(done)/\(total) tiles")
        }
    }

    func end() {
        if terminal { StandardError.write("\r\u{1B}[K") }
    }
}
