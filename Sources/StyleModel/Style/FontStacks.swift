import Basics
import PackStore

#if canImport(Glibc)
    import Glibc
#endif

/// The font stacks a style's symbol layers can ask for, by MapLibre's `populateFontStack`: a
/// symbol layer with a `text-field` contributes its `text-font`, or MapLibre's default stack when
/// it sets none; a zoom function or an expression contributes every literal stack it can produce.
public enum FontStacks {
    /// MapLibre's stack for a symbol layer that sets `text-field` but no `text-font`.
    static let defaultStack = ["Open Sans Regular", "Arial Unicode MS Regular"]

    /// A stack's name, as `{fontstack}` spells it (before encoding): the font names joined with `,`.
    public static func name(of stack: [String]) -> String { stack.joined(separator: ",") }

    /// The stack's directory in a pack's `glyphs/`: its name, escaped (`FileName`).
    public static func directoryName(of stack: [String]) -> String { FileName.escape(name(of: stack)) }

    /// The distinct stacks of `layers`, in MapLibre's `std::set` order (names compared byte by byte).
    static func collect(layers: JSONValue?) -> [[String]] {
        var stacks = Set<[String]>()
        for layer in layers?.array ?? [] where layer["type"]?.string == "symbol" {
            guard let layout = layer["layout"], let field = layout["text-field"], field != .null else {
                continue
            }
            switch layout["text-font"] {
            case nil, .null?: stacks.insert(defaultStack)
            case let value?: stacks.formUnion(possibleStacks(value))
            }
        }
        return stacks.sorted { a, b in
            a.lexicographicallyPrecedes(b) { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        }
    }

    /// The stacks one `text-font` value can produce. Like MapLibre, collection stops at the first
    /// output that is not a literal (a `get`, say): stacks before it are kept, later ones are not.
    static func possibleStacks(_ value: JSONValue) -> [[String]] {
        let outputs: [[String]?]
        if let constant = constantStack(value) {
            outputs = [constant]
        } else if case .object = value {
            outputs = legacyFunctionOutputs(value)
        } else {
            outputs = expressionOutputs(value)
        }
        return outputs.prefix(while: { $0 != nil }).compactMap { $0 }.filter { !$0.isEmpty }
    }

    /// A plain array of names; one headed by an expression operator is an expression (`isExpression`).
    private static func constantStack(_ value: JSONValue) -> [String]? {
        guard let names = names(value), !(names.first.map(operators.contains) ?? false) else { return nil }
        return names
    }

    /// The value as an array of strings, or nil.
    private static func names(_ value: JSONValue) -> [String]? {
        guard let items = value.array else { return nil }
        let names = items.compactMap(\.string)
        return names.count == items.count ? names : nil
    }

    /// `{"stops": [[zoom, stack], ...], "default": stack}` (camera, source or composite functions).
    private static func legacyFunctionOutputs(_ function: JSONValue) -> [[String]?] {
        var outputs: [[String]?] = (function["stops"]?.array ?? []).map { stop in
            stop.array.flatMap { $0.count == 2 ? names($0[1]) : nil }
        }
        if let fallback = function["default"] { outputs.append(names(fallback)) }
        return outputs
    }

    /// MapLibre's `possibleOutputs()`, nil standing for an output that is not a literal.
    static func expressionOutputs(_ expression: JSONValue) -> [[String]?] {
        guard let items = expression.array, let name = items.first?.string else { return [nil] }
        // MapLibre rejects a bare array of names inside an expression; fetching its glyphs anyway
        // costs little and serves a style whose author meant a literal.
        if !operators.contains(name) { return [constantStack(expression)] }
        let branches: [JSONValue]
        switch name {
        case "literal":
            return [items.count == 2 ? names(items[1]) : nil]
        case "step":  // [step, input, out0, stop1, out1, ...]
            branches = stride(from: 2, to: items.count, by: 2).map { items[$0] }
        case "match":  // [match, input, label1, out1, ..., fallback]
            branches = stride(from: 3, to: items.count - 1, by: 2).map { items[$0] } + items.suffix(1)
        case "case":  // [case, cond1, out1, ..., fallback]
            branches = stride(from: 2, to: items.count - 1, by: 2).map { items[$0] } + items.suffix(1)
        case "coalesce":
            branches = Array(items.dropFirst())
        case "let", "array":  // the result is the last argument
            branches = items.count > 1 ? [items[items.count - 1]] : []
        default:
            return [nil]
        }
        return branches.flatMap(expressionOutputs)
    }

    /// Expression operator names (MapLibre's registry, abridged to what can head an array).
    static let operators: Set<String> = [
        "literal", "step", "match", "case", "coalesce", "let", "var", "array", "get", "has", "at",
        "in", "index-of", "slice", "length", "concat", "downcase", "upcase", "to-string", "string",
        "number", "boolean", "object", "to-boolean", "to-number", "to-color", "typeof",
        "feature-state", "properties", "geometry-type", "id", "zoom", "heatmap-density",
        "line-progress", "accumulated", "interpolate", "interpolate-hcl", "interpolate-lab",
        "format", "image", "number-format", "resolved-locale", "collator", "is-supported-script",
        "==", "!=", "<", "<=", ">", ">=", "all", "any", "none", "!", "+", "-", "*", "/", "%", "^",
        "sqrt", "log10", "ln", "log2", "sin", "cos", "tan", "asin", "acos", "atan", "min", "max",
        "round", "abs", "ceil", "floor", "e", "pi", "ln2", "rgb", "rgba", "to-rgba", "within",
        "distance", "global-state", "split", "join", "elevation",
    ]
}
