import FoundationEssentials

/// Sizes for people: 1.5 MiB (the commands' and the exports' summaries).
public func humanBytes(_ bytes: Int64) -> String {
    let units = ["B", "KiB", "MiB", "GiB", "TiB"]
    var value = Double(bytes)
    var unit = 0
    while value >= 1024 && unit < units.count - 1 {
        value /= 1024
        unit += 1
    }
    return unit == 0 ? "\(bytes) B" : cFormat("%.1f", value) + " " + units[unit]
}
