#ifndef CAB_CLIBPQ_SHIM_H
#define CAB_CLIBPQ_SHIM_H
#include <libpq-fe.h>

/// PG_DIAG_SQLSTATE is a macro of postgres_ext.h ('C'); named here so Swift reads one constant.
static inline int cab_pq_diag_sqlstate(void) { return PG_DIAG_SQLSTATE; }
/// PG_DIAG_MESSAGE_PRIMARY ('M').
static inline int cab_pq_diag_message_primary(void) { return PG_DIAG_MESSAGE_PRIMARY; }
/// PG_DIAG_MESSAGE_DETAIL ('D').
static inline int cab_pq_diag_message_detail(void) { return PG_DIAG_MESSAGE_DETAIL; }
/// PG_DIAG_CONSTRAINT_NAME ('n').
static inline int cab_pq_diag_constraint_name(void) { return PG_DIAG_CONSTRAINT_NAME; }
#endif
