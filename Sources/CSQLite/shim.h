// SQLite's C API. SQLITE_STATIC and SQLITE_TRANSIENT are macros casting an integer to a function
// pointer, and sqlite3_db_config is variadic: Swift can use neither, so these wrappers give it one
// function each.
#pragma once
#include <sqlite3.h>

/// The bound bytes stay valid and unchanged until the statement is reset or rebound.
static inline sqlite3_destructor_type packfs_sqlite_static(void) { return SQLITE_STATIC; }
/// SQLite copies the bound bytes before the bind call returns.
static inline sqlite3_destructor_type packfs_sqlite_transient(void) { return SQLITE_TRANSIENT; }

/// Refuses double-quoted string literals ("abc" is an identifier only, as standard SQL has it),
/// in both DML and DDL. Returns SQLite's result code.
static inline int packfs_sqlite_refuse_double_quoted_strings(sqlite3 *db) {
    int code = sqlite3_db_config(db, SQLITE_DBCONFIG_DQS_DML, 0, (int *)0);
    if (code != SQLITE_OK) return code;
    return sqlite3_db_config(db, SQLITE_DBCONFIG_DQS_DDL, 0, (int *)0);
}
