import Basics
import FoundationEssentials
import PackStore

/// The web page a `--web-base` mount shows at its root (docs/web.md, "The mount as a web app"): the checkout's `web/`
/// and MapLibre GL JS beside it (`scripts/web-assets.sh` assembles them), so the page requests nothing outside the web
/// base. Read once, whole, at mount (nothing changes while mounted); missing any file, no page rather than half.
public struct WebPage: Sendable {
    public struct File: Sendable {
        public var name: String
        public var content: Data
    }

    /// Where the package installs the page.
    public static let installed = "/usr/share/packfs/web"

    /// The page's files, in the order the root lists them.
    public static let names = [
        "index.html", "packfs.js", "packfs.css", "maplibre-gl.js", "maplibre-gl.css", "maplibre-gl-LICENSE.txt",
    ]

    /// A file larger than this is no part of the page (a wrong directory).
    static let maxBytes = 16 << 20

    public let files: [File]

    /// Reads every file of `names` from `directory`; throws naming the first one that cannot be read.
    public static func load(from directory: String) throws(WebPageError) -> WebPage {
        var files: [File] = []
        for name in names {
            let path = (directory.hasSuffix("/") ? directory : directory + "/") + name
            files.append(File(name: name, content: try read(path)))
        }
        return WebPage(files: files)
    }

    func index(of name: String) -> Int? { files.firstIndex { $0.name == name } }

    private static func read(_ path: String) throws(WebPageError) -> Data {
        let content: Data
        do throws(SystemError) {
            content = try PosixFile(path: path, access: .read).read(upTo: maxBytes + 1)
        } catch {
            throw .unreadable(path: path, reason: error.description)
        }
        guard content.count <= maxBytes else { throw .tooLarge(path: path) }
        return content
    }
}

/// Why the page's directory gave no page.
public enum WebPageError: Error, Equatable, CustomStringConvertible {
    case unreadable(path: String, reason: String)
    case tooLarge(path: String)

    public var description: String {
        switch self {
        case .unreadable(let path, let reason): return "\(path): \(reason)"
        case .tooLarge(let path): return "\(path): larger than \(WebPage.maxBytes >> 20) MiB, no part of the page"
        }
    }
}
