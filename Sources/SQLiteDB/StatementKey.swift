/// A hot SQL text, made once (a `static let`): each connection finds its statement by the key's identity
/// (`Database.cachedStatement(_:)`) rather than hashing the text on every call.
public final class StatementKey: Hashable, Sendable, CustomStringConvertible {
    public let sql: String

    public init(_ sql: String) { self.sql = sql }

    public static func == (lhs: StatementKey, rhs: StatementKey) -> Bool { lhs === rhs }

    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }

    public var description: String { sql }
}

/// Where a cached statement sits in its connection's cache. The cache holds the key itself, so
/// that its identity is never reused by another key while the statement is there.
enum StatementCacheKey: Hashable {
    case text(String)
    case key(StatementKey)
}
