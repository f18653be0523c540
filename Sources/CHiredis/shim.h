#ifndef CAB_CHIREDIS_SHIM_H
#define CAB_CHIREDIS_SHIM_H
#include <hiredis/hiredis.h>

/// The reply types are macros (REDIS_REPLY_STRING ...); named here as functions Swift can call.
static inline int cab_redis_reply_string(void) { return REDIS_REPLY_STRING; }
static inline int cab_redis_reply_array(void) { return REDIS_REPLY_ARRAY; }
static inline int cab_redis_reply_integer(void) { return REDIS_REPLY_INTEGER; }
static inline int cab_redis_reply_nil(void) { return REDIS_REPLY_NIL; }
static inline int cab_redis_reply_status(void) { return REDIS_REPLY_STATUS; }
static inline int cab_redis_reply_error(void) { return REDIS_REPLY_ERROR; }
/// REDIS_OK (0).
static inline int cab_redis_ok(void) { return REDIS_OK; }
#endif
