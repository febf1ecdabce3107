/// The values bound to a statement's parameters, in order (`?`, `?NNN`, `:name` alike: the n-th
/// parameter gets the n-th value). Named arguments are not offered: PackFS binds by position.
public struct StatementArguments: ExpressibleByArrayLiteral, Equatable, Sendable, CustomStringConvertible {
    public private(set) var values: [DatabaseValue]

    public init() { values = [] }

    public init(_ values: some Sequence<(any DatabaseValueConvertible)?>) {
        self.values = values.map { $0?.databaseValue ?? .null }
    }

    public init(_ values: some Sequence<some DatabaseValueConvertible>) {
        self.values = values.map(\.databaseValue)
    }

    public init(arrayLiteral elements: (any DatabaseValueConvertible)?...) {
        self.init(elements)
    }

    /// Values already converted: a hot path's arguments with no array of existentials to box and unbox.
    public init(values: [DatabaseValue]) { self.values = values }

    public var isEmpty: Bool { values.isEmpty }

    public var count: Int { values.count }

    public static func + (lhs: StatementArguments, rhs: StatementArguments) -> StatementArguments {
        StatementArguments(values: lhs.values + rhs.values)
    }

    public var description: String { "[" + values.map(\.description).joined(separator: ", ") + "]" }
}
