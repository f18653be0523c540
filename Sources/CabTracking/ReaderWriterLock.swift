#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A value behind a reader-writer lock (`pthread_rwlock_t`): many readers at once, or one writer.
///
/// On Linux the lock prefers writers, so a steady stream of searches cannot starve ingestion.
final class ReaderWriterLock<Value>: @unchecked Sendable {
    // @unchecked: `value` is only touched between pthread_rwlock_rdlock/wrlock and unlock on `lock`.
    private let lock: UnsafeMutablePointer<pthread_rwlock_t>
    private var value: Value

    init(_ value: Value) {
        self.value = value
        lock = .allocate(capacity: 1)
        var attributes = pthread_rwlockattr_t()
        pthread_rwlockattr_init(&attributes)
        #if os(Linux)
            pthread_rwlockattr_setkind_np(&attributes, Int32(PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP))
        #endif
        let status = pthread_rwlock_init(lock, &attributes)
        pthread_rwlockattr_destroy(&attributes)
        precondition(status == 0, "pthread_rwlock_init failed: \(status)")
    }

    deinit {
        pthread_rwlock_destroy(lock)
        lock.deallocate()
    }

    /// Runs `body` with shared access.
    func withReadLock<T>(_ body: (borrowing Value) throws -> T) rethrows -> T {
        pthread_rwlock_rdlock(lock)
        defer { pthread_rwlock_unlock(lock) }
        return try body(value)
    }

    /// Runs `body` with exclusive access.
    func withWriteLock<T>(_ body: (inout Value) throws -> T) rethrows -> T {
        pthread_rwlock_wrlock(lock)
        defer { pthread_rwlock_unlock(lock) }
        return try body(&value)
    }
}
