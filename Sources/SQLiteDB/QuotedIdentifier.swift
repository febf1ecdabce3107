extension String {
    /// The string as an SQL identifier: in double quotes, any double quote in it doubled
    /// (`my "table"` becomes `"my ""table"""`).
    public var quotedDatabaseIdentifier: String {
        var quoted = "\""
        for character in self {
            quoted.append(character)
            if character == "\"" { quoted.append("\"") }
        }
        return quoted + "\""
    }
}
