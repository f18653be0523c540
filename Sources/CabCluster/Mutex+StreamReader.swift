import CabRedis
import Synchronization

extension Mutex where Value == RedisStreamReader? {
    /// Takes the reader out (so that a second call does nothing) and stops it outside the lock.
    func takeAndStop() {
        let reader = withLock { r in
            defer { r = nil }
            return r
        }
        reader?.stop()
    }
}
