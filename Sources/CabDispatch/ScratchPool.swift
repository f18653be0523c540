import Synchronization

/// A pool of reusable per-query workspaces (routers keep scratch arrays between queries): a worker thread takes
/// one, uses it alone, and gives it back. Bounded by the number of threads that ever ran at once.
final class ScratchPool<Value: Sendable>: Sendable {
    private let idle: Mutex<[Value]>
    private let make: @Sendable () -> Value

    init(make: @escaping @Sendable () -> Value) {
        self.make = make
        idle = Mutex([])
    }

    /// Runs `body` with a workspace of its own.
    func with<T, E: Error>(_ body: (inout Value) throws(E) -> T) throws(E) -> T {
        var value = idle.withLock { $0.popLast() } ?? make()
        defer { idle.withLock { $0.append(value) } }
        return try body(&value)
    }
}
