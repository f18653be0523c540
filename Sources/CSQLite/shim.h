#ifndef CAB_CSQLITE_SHIM_H
#define CAB_CSQLITE_SHIM_H
#include <sqlite3.h>

/// SQLITE_TRANSIENT is a macro casting -1 to a destructor; Swift cannot import it.
static inline int cab_sqlite3_bind_text_transient(sqlite3_stmt *stmt, int index, const char *text, int length) {
    return sqlite3_bind_text(stmt, index, text, length, SQLITE_TRANSIENT);
}

/// Binds a blob, copying it (SQLITE_TRANSIENT).
static inline int cab_sqlite3_bind_blob_transient(sqlite3_stmt *stmt, int index, const void *data, int length) {
    return sqlite3_bind_blob(stmt, index, data, length, SQLITE_TRANSIENT);
}

/// sqlite3_config is variadic (Swift cannot call it). Turns off SQLite's memory statistics, which take a global
/// mutex on every allocation; must run before the first connection opens (else SQLITE_MISUSE, harmless).
static inline int cab_sqlite3_disable_memory_statistics(void) {
    return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}
#endif
