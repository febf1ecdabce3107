// Basics: the vocabulary every layer of PackFS shares, with no I/O beyond POSIX files.
//
// Concepts: the folders and their types are listed in docs/internals.md. Inflate/ is the one
// inflate family: every inflate in PackFS goes through it.
//
// Threading. Values are `Sendable`; the inflaters are one per thread, as each says.
//
// Errors. Each throws its own small error (`Zlib.Failure`, `SystemError`, `JSONValue`'s parse
// error) with one line saying what was wrong; nothing here logs.
