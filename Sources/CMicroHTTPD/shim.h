#ifndef CAB_CMICROHTTPD_SHIM_H
#define CAB_CMICROHTTPD_SHIM_H
#include <stdarg.h>
#include <stdint.h>
#include <string.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <microhttpd.h>

/// What `cab_mhd_start` needs: the variadic options of `MHD_start_daemon`, spelled out.
struct cab_mhd_options {
    const char *host;              /* numeric IPv4/IPv6 address, or NULL for every interface */
    uint16_t port;                 /* 0: the kernel picks a free port */
    unsigned int thread_pool_size;
    unsigned int connection_limit;
    unsigned int connection_timeout_seconds;
    MHD_AccessHandlerCallback access_handler;
    void *access_handler_cls;
    MHD_RequestCompletedCallback completed;
    void *completed_cls;
    unsigned int per_ip_connection_limit;  /* 0: no limit */
    size_t connection_memory_limit;        /* bytes per connection for headers and the read buffer */
    MHD_NotifyConnectionCallback notify_connection;
    void *notify_connection_cls;
    void *(*uri_log)(void *cls, const char *uri, struct MHD_Connection *connection);
    void *uri_log_cls;
};

/// Starts a daemon with an internal epoll thread pool and suspend/resume (`MHD_start_daemon`).
/// Returns NULL when the host is not a numeric address or the daemon cannot start (port taken, ...).
static inline struct MHD_Daemon *cab_mhd_start(const struct cab_mhd_options *o) {
    unsigned int flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_ALLOW_SUSPEND_RESUME;
    struct sockaddr_in v4;
    struct sockaddr_in6 v6;
    const struct sockaddr *address = NULL;
    if (o->host != NULL) {
        memset(&v4, 0, sizeof v4);
        memset(&v6, 0, sizeof v6);
        if (inet_pton(AF_INET, o->host, &v4.sin_addr) == 1) {
            v4.sin_family = AF_INET;
            v4.sin_port = htons(o->port);
            address = (const struct sockaddr *)&v4;
        } else if (inet_pton(AF_INET6, o->host, &v6.sin6_addr) == 1) {
            v6.sin6_family = AF_INET6;
            v6.sin6_port = htons(o->port);
            address = (const struct sockaddr *)&v6;
            flags |= MHD_USE_IPv6;
        } else {
            return NULL;
        }
    }
    if (address != NULL) {
        return MHD_start_daemon(flags, o->port, NULL, NULL, o->access_handler, o->access_handler_cls,
            MHD_OPTION_SOCK_ADDR, address,
            MHD_OPTION_THREAD_POOL_SIZE, o->thread_pool_size,
            MHD_OPTION_CONNECTION_LIMIT, o->connection_limit,
            MHD_OPTION_CONNECTION_TIMEOUT, o->connection_timeout_seconds,
            MHD_OPTION_NOTIFY_COMPLETED, o->completed, o->completed_cls,
            MHD_OPTION_PER_IP_CONNECTION_LIMIT, o->per_ip_connection_limit,
            MHD_OPTION_CONNECTION_MEMORY_LIMIT, o->connection_memory_limit,
            MHD_OPTION_NOTIFY_CONNECTION, o->notify_connection, o->notify_connection_cls,
            MHD_OPTION_URI_LOG_CALLBACK, o->uri_log, o->uri_log_cls,
            MHD_OPTION_END);
    }
    return MHD_start_daemon(flags, o->port, NULL, NULL, o->access_handler, o->access_handler_cls,
        MHD_OPTION_THREAD_POOL_SIZE, o->thread_pool_size,
        MHD_OPTION_CONNECTION_LIMIT, o->connection_limit,
        MHD_OPTION_CONNECTION_TIMEOUT, o->connection_timeout_seconds,
        MHD_OPTION_NOTIFY_COMPLETED, o->completed, o->completed_cls,
        MHD_OPTION_PER_IP_CONNECTION_LIMIT, o->per_ip_connection_limit,
        MHD_OPTION_CONNECTION_MEMORY_LIMIT, o->connection_memory_limit,
        MHD_OPTION_NOTIFY_CONNECTION, o->notify_connection, o->notify_connection_cls,
        MHD_OPTION_URI_LOG_CALLBACK, o->uri_log, o->uri_log_cls,
        MHD_OPTION_END);
}

/// The port the daemon listens on (`MHD_get_daemon_info` with `MHD_DAEMON_INFO_BIND_PORT`), 0 if unknown.
static inline uint16_t cab_mhd_bound_port(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
    return info == NULL ? 0 : info->port;
}

/// The client's address as text into `buffer` (`MHD_get_connection_info` with `MHD_CONNECTION_INFO_CLIENT_ADDRESS`).
/// Returns 0 on success, -1 when unknown.
static inline int cab_mhd_client_address(struct MHD_Connection *connection, char *buffer, size_t size) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    if (info == NULL || info->client_addr == NULL) return -1;
    const struct sockaddr *sa = info->client_addr;
    if (sa->sa_family == AF_INET) {
        return inet_ntop(AF_INET, &((const struct sockaddr_in *)sa)->sin_addr, buffer, (socklen_t)size) ? 0 : -1;
    }
    if (sa->sa_family == AF_INET6) {
        return inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)sa)->sin6_addr, buffer, (socklen_t)size) ? 0 : -1;
    }
    return -1;
}

/// The connection's socket (`MHD_get_connection_info` with `MHD_CONNECTION_INFO_CONNECTION_FD`), -1 if unknown.
static inline int cab_mhd_connection_fd(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    return info == NULL ? -1 : info->connect_fd;
}

/// Cuts the query string off a request line in libmicrohttpd's own buffer, from the URI log callback, before
/// libmicrohttpd splits it into arguments (it has already found the '?', so the arguments it parses are then
/// empty). Used for a query with too many parameters: parsing them would overflow the connection's memory
/// pool, after which libmicrohttpd 0.9.75 answers nothing until the idle timeout.
static inline void cab_mhd_drop_query(const char *uri) {
    char *question = strchr((char *)uri, '?');
    if (question != NULL) question[1] = '\0';
}

/// `MHD_CONTENT_READER_END_OF_STREAM` (a macro with a cast, invisible to Swift).
static inline ssize_t cab_mhd_end_of_stream(void) { return MHD_CONTENT_READER_END_OF_STREAM; }

/// `MHD_CONTENT_READER_END_WITH_ERROR` (a macro with a cast, invisible to Swift).
static inline ssize_t cab_mhd_end_with_error(void) { return MHD_CONTENT_READER_END_WITH_ERROR; }

/// `MHD_SIZE_UNKNOWN` (a macro, invisible to Swift).
static inline uint64_t cab_mhd_size_unknown(void) { return MHD_SIZE_UNKNOWN; }
#endif
