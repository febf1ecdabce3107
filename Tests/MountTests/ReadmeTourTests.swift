import Foundation
import TestSupport
import XCTest

/// The README's five-minute tour, run as written: the `console` block between `<!-- tour -->` and
/// `<!-- /tour -->` in README.md is read from the file, and each `$ ` command (with its `> `
/// continuation lines) runs with bash, one after another, in the test's directory, against a real
/// `packfs mount` and the bundled sample server (nginx serving Fixtures/world). The built `packfs`
/// is first on the PATH, and the sample server's URL takes the place of the README's
/// `http://127.0.0.1:8181`. Each command must exit 0 and print what the README shows under it:
/// spaces and line breaks compare alike (`ls` prints columns to a terminal and a name a line to a
/// pipe), and `...` stands for any text. A command or an output that no longer holds fails.
final class ReadmeTourTests: DaemonMountTestCase {
    /// The address the README's tour gives the sample server.
    static let readmeServer = "http://127.0.0.1:8181"

    func testTheReadmeTourRunsAsWritten() throws {
        let readme = try String(contentsOf: ProjectPaths.root.appendingPathComponent("README.md"), encoding: .utf8)
        let steps = try TourStep.parse(readme: readme)
        let commands = steps.map(\.command).joined(separator: "\n")
        for needed in ["packfs mount ", ".region <<", "ls mnt/packs", "cat mnt/packs/helsinki/progress.json",
                       "rm mnt/packs/helsinki.region"] {
            XCTAssertTrue(commands.contains(needed), "the tour has no `\(needed)`")
        }
        // The tour makes its own mountpoint and database in the test's directory: `mnt` is the
        // mountpoint tearDown unmounts, `packs.db` the database it waits for.
        try FileManager.default.removeItem(atPath: mount.path)
        for step in steps {
            let command = step.command.replacingOccurrences(of: Self.readmeServer, with: server.baseURL)
            let expected = step.output.replacingOccurrences(of: Self.readmeServer, with: server.baseURL)
            let outcome = try run(command)
            XCTAssertEqual(outcome.status, 0, "`\(command)` exited \(outcome.status): \(outcome.text)")
            XCTAssertTrue(TourStep.matches(outcome.text, expected),
                          "`\(command)` printed\n\(outcome.text)\nwhere the README shows\n\(expected)")
            guard outcome.status == 0 else { return }
        }
        XCTAssertFalse(mount.isMounted, "the tour ends unmounted")
        XCTAssertTrue(eventually(timeout: 30) { !FileManager.default.fileExists(atPath: db + "-wal") },
                      "the daemon closed the database")
    }

    /// `command` with bash in the test's directory; the text is stdout and stderr together.
    private func run(_ command: String) throws -> (status: Int32, text: String) {
        let path = BuiltProducts.directory.path + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
        let script = "cd '\(temp.url.path)' || exit 90\n" + command
        return try Command.run("/bin/bash", ["-c", script], environment: ["PATH": path, "LC_ALL": "C"], timeout: 300)
    }
}

/// One command of the README's tour and the output the README shows for it.
struct TourStep: Equatable {
    var command: String
    var output: String

    enum Failure: Error, CustomStringConvertible {
        case noTour(String)
        var description: String {
            switch self { case .noTour(let why): return "README.md: no tour: \(why)" }
        }
    }

    /// The steps of the ```console block between `<!-- tour -->` and `<!-- /tour -->`.
    static func parse(readme: String) throws -> [TourStep] {
        guard let start = readme.range(of: "<!-- tour -->"),
              let end = readme.range(of: "<!-- /tour -->", range: start.upperBound..<readme.endIndex)
        else { throw Failure.noTour("the markers <!-- tour --> and <!-- /tour --> are missing") }
        var lines = readme[start.upperBound..<end.lowerBound].split(separator: "\n", omittingEmptySubsequences: false)
            .map(String.init)
        while lines.first?.trimmingCharacters(in: .whitespaces).isEmpty == true { lines.removeFirst() }
        while lines.last?.trimmingCharacters(in: .whitespaces).isEmpty == true { lines.removeLast() }
        guard lines.first == "```console", lines.last == "```" else {
            throw Failure.noTour("the markers hold no ```console block alone")
        }
        return try steps(of: Array(lines.dropFirst().dropLast()))
    }

    /// `$ ` starts a command, `> ` right after a command line continues it, any other line is
    /// that command's output.
    private static func steps(of lines: [String]) throws -> [TourStep] {
        var steps: [TourStep] = []
        var continuing = false
        for line in lines {
            if line.hasPrefix("$ ") {
                steps.append(TourStep(command: String(line.dropFirst(2)), output: ""))
                continuing = true
            } else if continuing, line.hasPrefix("> ") || line == ">" {
                steps[steps.count - 1].command += "\n" + String(line.dropFirst(2))
            } else {
                guard !steps.isEmpty else { throw Failure.noTour("output before the first command: \(line)") }
                steps[steps.count - 1].output += line + "\n"
                continuing = false
            }
        }
        guard !steps.isEmpty else { throw Failure.noTour("no command") }
        return steps
    }

    /// Whether `text` is `pattern` with whitespace runs alike and each `...` standing for any text.
    static func matches(_ text: String, _ pattern: String) -> Bool {
        let words = { (s: String) in s.split(whereSeparator: \.isWhitespace).joined(separator: " ") }
        var rest = Substring(words(text))
        let parts = words(pattern).components(separatedBy: "...")
        for (index, part) in parts.enumerated() {
            if index == 0 {
                guard rest.hasPrefix(part) else { return false }
                rest = rest.dropFirst(part.count)
            } else if index == parts.count - 1 {
                return rest.hasSuffix(part)
            } else {
                guard let found = rest.range(of: part) else { return false }
                rest = rest[found.upperBound...]
            }
        }
        return rest.isEmpty
    }
}
