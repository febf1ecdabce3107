import Basics
import FoundationEssentials
import PackStore

/// The source id a synthetic style gives a tile template: the imported file's pack name for an
/// imported file's template (`mbtiles://<name>/{z}/{x}/{y}`), else the last path segment before the
/// first `{token}` (`https://host/data/v3/{z}/{x}/{y}.pbf` is `v3`), else the host; made unique
/// among the pack's ids with `-2`, `-3`...
enum SourceID {
    static func derive(_ templates: [String]) -> [String] {
        var taken = Set<String>()
        return templates.map { template in
            let base = name(of: template)
            var id = base
            var suffix = 2
            while !taken.insert(id).inserted {
                id = "\(base)-\(suffix)"
                suffix += 1
            }
            return id
        }
    }

    static func name(of template: String) -> String {
        let scheme = URLString.scheme(of: template)
        let host = URLString.host(of: template).map { $0.percentDecoded ?? $0 } ?? ""
        if scheme == ImportedFiles.mbtilesScheme || scheme == ImportedFiles.pmtilesScheme, !host.isEmpty { return host }
        let path = URLString.splitQuery(template).head
        let afterAuthority = path.split(separator: "/", omittingEmptySubsequences: true).dropFirst(2)
        let segments = afterAuthority.prefix { !$0.contains("{") }
        if let last = segments.last { return last.percentDecoded ?? String(last) }
        return host.isEmpty ? "tiles" : host
    }
}
